package gateway

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/riskchart/riskchart/server/internal/embedlink"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// private guards the signed paths. Never for another site's page: on
// loopback no token is asked, and any page the viewer opens could make the
// server call the venue for it (a cross-site text/plain POST needs no CORS
// preflight). Then open to loopback listeners, otherwise a viewer token
// (bearer header or the login cookie) is required. A request from an embed
// (it carries the embed header) is judged by its signed embed link instead,
// in the handler, once the contract is known.
//
// Every refusal is an access error in the venue's terms: HTTP 200 with code
// 403, as the venue answers an unknown key (docs/decisions.md#gateway-error-statuses).
func (s *server) private(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.refusedCrossSite(w, r, "private data is not served to other sites' pages: ") {
			return
		}
		if _, embed := r.Header[venueapi.EmbedHeader]; embed {
			next.ServeHTTP(w, r)
			return
		}
		if !s.mayViewPrivate(r) {
			refuse(r, refusalViewerToken)
			w.Header().Set("WWW-Authenticate", `Bearer realm="riskchart"`)
			writeError(w, r.URL.Path, http.StatusOK, venueapi.CodeForbidden,
				"private data needs a viewer token: sign in at /login or send Authorization: Bearer <token>", s.now())
			return
		}
		next.ServeHTTP(w, r)
	})
}

// tiersAccess guards the tier path: private, unless PublicTiers makes the
// ladders public. They are venue-wide, the same for every account, and the
// venue family publishes them on its own site; the gateway's cache and the
// client's fair share still bound the venue calls. Another site's page is
// refused all the same: it would spend this server's venue budget
// (docs/decisions.md#public-tiers).
func (s *server) tiersAccess(next http.Handler) http.Handler {
	if !s.cfg.PublicTiers {
		return s.private(next)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.refusedCrossSite(w, r, "tiers are not served to other sites' pages: ") {
			return
		}
		next.ServeHTTP(w, r)
	})
}

// refusedCrossSite marks the answer private and, for another site's page,
// answers the refusal, msg followed by why, and reports true.
func (s *server) refusedCrossSite(w http.ResponseWriter, r *http.Request, msg string) bool {
	w.Header().Set("Cache-Control", "private, no-store")
	why := s.crossSite(r)
	if why == "" {
		return false
	}
	refuse(r, refusalCrossSite)
	writeError(w, r.URL.Path, http.StatusOK, venueapi.CodeForbidden, msg+why, s.now())
	return true
}

const viewerCookie = "riskchart_viewer"

// viewer reports whether r carries a configured viewer token (bearer header,
// the scheme's name in any case as HTTP has it) or the login cookie of one,
// comparing in constant time.
func (s *server) viewer(r *http.Request) bool {
	if scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "Bearer") {
		return s.validToken(strings.TrimLeft(token, " "))
	}
	if c, err := r.Cookie(viewerCookie); err == nil {
		return s.validCookie(c.Value)
	}
	return false
}

// validToken compares digests, so that neither a token's bytes nor its
// length shows in how long a refusal takes.
func (s *server) validToken(token string) bool {
	if token == "" {
		return false
	}
	sum := sha256.Sum256([]byte(token))
	ok := 0
	for _, t := range s.tokenSums {
		ok |= subtle.ConstantTimeCompare(t[:], sum[:])
	}
	return ok == 1
}

// cookieLife is how long a sign-in lasts: the cookie's Max-Age, and the age
// past which the server refuses a cookie it issued, so that a copied cookie
// stops working then too.
const cookieLife = 30 * 24 * time.Hour

// cookieSkew is how far in the future a cookie's issue time may be: another
// replica's clock may run ahead of this one's.
const cookieSkew = time.Minute

// cookieOf is the login cookie's value for a token, issued at issued: the
// issue time and a MAC of it keyed by the token, so that the token itself is
// never in an answer or a browser's storage, the cookie outlives restarts
// and works on every replica, it lapses cookieLife after its issue, and
// removing the token revokes its cookies (docs/decisions.md#viewer-sign-in).
func cookieOf(token venue.Secret, issued time.Time) string {
	var b [8 + sha256.Size]byte
	binary.BigEndian.PutUint64(b[:8], uint64(issued.Unix()))
	copy(b[8:], cookieMAC(token, b[:8]))
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func cookieMAC(token venue.Secret, issued []byte) []byte {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte("riskchart viewer cookie v2"))
	m.Write(issued)
	return m.Sum(nil)
}

// validCookie reports whether value is a login cookie of a configured token
// issued less than cookieLife ago.
func (s *server) validCookie(value string) bool {
	b, err := base64.RawURLEncoding.DecodeString(value)
	if err != nil || len(b) != 8+sha256.Size {
		return false
	}
	issued := time.Unix(int64(binary.BigEndian.Uint64(b[:8])), 0)
	if now := s.now(); issued.After(now.Add(cookieSkew)) || !now.Before(issued.Add(cookieLife)) {
		return false
	}
	ok := 0
	for _, t := range s.cfg.ViewerTokens {
		ok |= subtle.ConstantTimeCompare(cookieMAC(t, b[:8]), b[8:])
	}
	return ok == 1
}

// embedDenied reports, and answers, an embed call its link does not cover,
// naming the header and the rule the link breaks (docs/deploy.md#what-a-refusal-means).
// With PublicTiers, the tiers need no link.
func (s *server) embedDenied(w http.ResponseWriter, r *http.Request, panel, contract string) bool {
	if _, embed := r.Header[venueapi.EmbedHeader]; !embed || panel == embedlink.PanelTiers && s.cfg.PublicTiers {
		return false
	}
	deny := func(msg string) bool {
		refuse(r, refusalEmbedLink)
		writeError(w, r.URL.Path, http.StatusOK, venueapi.CodeForbidden, msg, s.now())
		return true
	}
	if contract == "" { // by pair, or every contract: a link grants named contracts only
		return deny("this embed has no valid link for the " + panel + " of more than one contract: " + venueapi.EmbedHeader +
			": a link grants the contracts it names, so contract_code is required from an embed")
	}
	why := s.linkRefusal(r.Header.Get(venueapi.EmbedHeader), panel, contract)
	if why == "" {
		return false
	}
	return deny("this embed has no valid link for the " + panel + " of " + contract + ": " + venueapi.EmbedHeader + ": " + why +
		"; the operator issues a new one with riskchart embed-link")
}

// linkAllows reports whether token is a valid embed link granting panel
// for contract now.
func (s *server) linkAllows(token, panel, contract string) bool {
	return s.linkRefusal(token, panel, contract) == ""
}

// linkRefusal is why token is no valid embed link granting panel for
// contract now, or "" when it is one. The scope it names is no secret (the
// embed reads it: app/embedscope), so naming what it grants tells nothing.
func (s *server) linkRefusal(token, panel, contract string) string {
	switch {
	case s.cfg.EmbedLinks == nil:
		return "this server checks no embed links"
	case token == "":
		return "is empty: the embed's URL carries no embed link"
	}
	scope, err := s.cfg.EmbedLinks.Check(token)
	switch now := s.now(); {
	case err != nil:
		return err.Error()
	case !now.Before(scope.Expires):
		return "the link expired at " + scope.Expires.UTC().Format(time.RFC3339)
	case !slices.Contains(scope.Panels, panel):
		return "the link does not grant the " + panel
	case !slices.Contains(scope.Contracts, contract):
		return "the link does not grant " + contract
	}
	return ""
}

var loginPage = serverPage("login", `{{define "title"}}sign in{{end}}{{define "main"}}
<p class="muted">The risk-limit tiers and your position limits on this server need a viewer token, which its operator gives. The chart needs none.</p>
<form method="post" action="/login">
<input name="username" value="Riskchart viewer" autocomplete="username" hidden>
<label for="token">Viewer token</label>
<input id="token" class="control" name="token" type="password" autocomplete="current-password" required{{if .Err}} aria-invalid="true" aria-describedby="login-error"{{end}}>
{{if .Err}}<p id="login-error" class="field-error" role="alert">{{.Err}}</p>{{end}}
<input name="next" type="hidden" value="{{.Next}}">
<button class="button" type="submit">Sign in</button></form>
<p><a href="{{.Next}}">Back{{if not .SignedIn}} without signing in{{end}}</a></p>
{{if .SignedIn}}<h2>Signed in</h2>
<p class="muted">This browser is signed in for 30 days from the sign-in. Signing out removes its sign-in, here and in every tab of this site; the token stays valid for whoever has it.</p>
<form method="post" action="/logout"><input name="next" type="hidden" value="{{.Next}}"><button class="button" type="submit">Sign out</button></form>
{{end}}{{end}}`)

// loginForm is what the login page shows: where a sign-in returns to, why
// the last one failed, and whether the browser is signed in already (then it
// offers to sign out). (The hidden user name lets password managers keep the
// token as a login of this site.)
type loginForm struct {
	Next, Err string
	SignedIn  bool
}

func (s *server) handleLoginPage() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		answerLoginPage(w, http.StatusOK, loginForm{Next: returnTo(r), SignedIn: s.signedIn(r)})
	})
}

// answerLoginPage answers with the login page showing form, under status.
func answerLoginPage(w http.ResponseWriter, status int, form loginForm) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	loginPage.Execute(w, form)
}

// signedIn reports whether r carries the login cookie of a configured token.
func (s *server) signedIn(r *http.Request) bool {
	c, err := r.Cookie(viewerCookie)
	return err == nil && s.validCookie(c.Value)
}

// returnTo is the page a sign-in goes back to: the form's next field, or,
// when the login page is first opened, the page of this server that linked
// to it (the app's "sign in" link in a panel without access). Anything but
// a path of this server is "/": a login page that redirected anywhere it
// was told would lend this site's name to a phishing link.
func returnTo(r *http.Request) string {
	next := r.FormValue("next")
	if next == "" && r.Method == http.MethodGet {
		if ref, err := url.Parse(r.Referer()); err == nil && (ref.Scheme == "http" || ref.Scheme == "https") && ref.Host == r.Host {
			next = ref.RequestURI()
		}
	}
	return localPath(next)
}

// localPath is p when it is a path of this server, and "/" otherwise. A
// browser reads "//host", "/\host" and a path with a tab or a newline in it
// as another host, so those are refused with every absolute URL; so are the
// login page itself, which would only ask again, and the sign-out's.
func localPath(p string) string {
	u, err := url.Parse(p)
	if err != nil || !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.ContainsAny(p, "\\\x00\t\r\n") ||
		u.Scheme != "" || u.Host != "" || u.Path == "/login" || u.Path == "/logout" || len(p) > maxReturnPath {
		return "/"
	}
	return p
}

// maxReturnPath bounds the path a sign-in returns to: a view's URL is well
// under it.
const maxReturnPath = 2048

// handleLogin sets the viewer cookie for a valid token sent by this
// server's login page, never by another site's (crossSite).
func (s *server) handleLogin() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, 4096)
		token := r.PostFormValue("token")
		w.Header().Set("Cache-Control", "no-store")
		if why := s.crossSite(r); why != "" {
			// Another site's form would sign this browser in with a token of
			// its choosing, over the viewer's own (docs/decisions.md#cross-site-requests).
			refuse(r, refusalCrossSite)
			answerLoginPage(w, http.StatusForbidden, loginForm{Next: returnTo(r), Err: "A page of another site cannot sign you in here: " + why + ". Sign in on this page."})
			return
		}
		if !s.validToken(token) {
			refuse(r, refusalViewerToken)
			answerLoginPage(w, http.StatusUnauthorized, loginForm{Next: returnTo(r), Err: "That token is not valid."})
			return
		}
		http.SetCookie(w, s.loginCookie(r, cookieOf(venue.Secret(token), s.now()), int(cookieLife/time.Second)))
		http.Redirect(w, r, returnTo(r), http.StatusSeeOther)
	})
}

// loginCookie is the viewer cookie with value, for maxAge seconds (negative:
// delete it now). Secure behind a TLS proxy too, where r.TLS is nil but
// browsers use https.
func (s *server) loginCookie(r *http.Request, value string, maxAge int) *http.Cookie {
	secure := r.TLS != nil || s.cfg.PublicURL != nil && s.cfg.PublicURL.Scheme == "https"
	return &http.Cookie{Name: viewerCookie, Value: value, Path: "/", HttpOnly: true,
		Secure: secure, SameSite: http.SameSiteStrictMode, MaxAge: maxAge}
}

// handleLogout removes the browser's viewer cookie and returns to the next
// field's page. Another site's page may not sign the viewer out either: it
// would take the viewer's private panels away on a page of its choosing.
// The token stays valid; a copy of the cookie lapses cookieLife after the
// sign-in, and removing the token from RISKCHART_VIEWER_TOKENS ends its
// cookies at once.
func (s *server) handleLogout() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, 4096)
		w.Header().Set("Cache-Control", "no-store")
		if why := s.crossSite(r); why != "" {
			refuse(r, refusalCrossSite)
			answerLoginPage(w, http.StatusForbidden, loginForm{Next: returnTo(r), SignedIn: s.signedIn(r),
				Err: "A page of another site cannot sign you out here: " + why + ". Sign out on this page."})
			return
		}
		http.SetCookie(w, s.loginCookie(r, "", -1))
		http.Redirect(w, r, returnTo(r), http.StatusSeeOther)
	})
}
