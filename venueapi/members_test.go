package venueapi

import (
	"reflect"
	"testing"
)

func TestJSONMembersKeepsEveryMemberInOrder(t *testing.T) {
	for _, tc := range []struct {
		body string
		want []Member
		ok   bool
	}{
		{`{}`, nil, true},
		{` {"pair":"BTC-USDT","pair":"ETH-USDT","n":1} `, []Member{{"pair", []byte(`"BTC-USDT"`)}, {"pair", []byte(`"ETH-USDT"`)}, {"n", []byte(`1`)}}, true},
		{`{"a":{"b":[1,2]}}`, []Member{{"a", []byte(`{"b":[1,2]}`)}}, true},
		{`null`, nil, false},
		{`[]`, nil, false},
		{`{"a":"b"} {}`, nil, false},
		{`{"a":"b"`, nil, false},
		{`{"a"}`, nil, false},
	} {
		got, ok := JSONMembers([]byte(tc.body))
		if ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("JSONMembers(%s) = %q, %v; want %q, %v", tc.body, got, ok, tc.want, tc.ok)
		}
	}
}
