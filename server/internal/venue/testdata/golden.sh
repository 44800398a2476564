#!/bin/sh
# Writes the golden signed requests of the client tests from canonical
# strings written by hand from docs/decisions.md (Canonical string), signed with openssl: never by
# the code under test. Run from this directory: sh golden.sh
set -eu
secret='b0xxxxxx-c6xxxxxx-94xxxxxx-dxxxx'
sig() { printf '%s' "$1" | openssl dgst -sha256 -hmac "$secret" -binary | base64; }
# Percent-encode a Base64 signature as RFC 3986 says: + / = are reserved.
enc() { printf '%s' "$1" | sed -e 's/+/%2B/g' -e 's/\//%2F/g' -e 's/=/%3D/g'; }

q='AccessKeyId=e2xxxxxx-99xxxxxx-84xxxxxx-7xxxx&SignatureMethod=HmacSHA256&SignatureVersion=2&Timestamp=2026-11-22T10%3A00%3A00&contract_code=BTC-USDT&margin_mode=cross'
s=$(sig "$(printf 'GET\nvenue.test:9000\n/sapi/v1/position/risk/limit_tier\n%s' "$q")")
printf '%s&Signature=%s\n' "$q" "$(enc "$s")" > tiers-query.golden

# The default port is left out of the signed host.
q='AccessKeyId=e2xxxxxx-99xxxxxx-84xxxxxx-7xxxx&SignatureMethod=HmacSHA256&SignatureVersion=2&Timestamp=2026-11-22T10%3A00%3A00'
s=$(sig "$(printf 'POST\nvenue.test\n/sapi/v1/position/position_limit\n%s' "$q")")
printf '%s&Signature=%s\n' "$q" "$(enc "$s")" > limits-query.golden
