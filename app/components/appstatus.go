package components

import (
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/browser"
)

// updateCheckEvery is how often an open page asks for a new deployment: an
// installed app may stay open for days.
const updateCheckEvery = 30 * time.Minute

// AppStatus is the installed-app side of the page: an Install button while
// the browser offers installation, and a notice with a Reload button once a
// new deployment has been downloaded by the service worker (go-app's update
// hook). It also asks for updates while the page stays open, and when it
// comes back into view.
type AppStatus struct {
	app.Compo

	installable bool
	apple       bool // Safari installs through its Share menu, with no prompt to show
	hint        bool // the Share-menu hint is shown
	updateReady bool
	stopVisible func()        // stops listening to the page coming into view
	gone        chan struct{} // closed when the status leaves the page: its ticker stops
}

// OnMount reads the current state and starts checking for updates. When
// the state has nothing to show, the page is not rendered again for it
// (docs/startup.md, "One render at mount").
func (s *AppStatus) OnMount(ctx app.Context) {
	installable, updateReady, apple := ctx.IsAppInstallable(), ctx.AppUpdateAvailable(), ctx.IsAppleBrowser()
	if installable == s.installable && updateReady == s.updateReady && apple == s.apple {
		ctx.PreventUpdate()
	}
	s.installable, s.updateReady, s.apple = installable, updateReady, apple
	var last time.Time
	s.stopVisible = browser.WhenVisible(func() {
		if time.Since(last) > time.Minute {
			last = time.Now()
			app.TryUpdate()
		}
	})
	s.gone = make(chan struct{})
	gone := s.gone
	ctx.Async(func() {
		t := time.NewTicker(updateCheckEvery)
		defer t.Stop()
		for {
			select {
			case <-gone: // go-app does not end ctx when it removes a component
				return
			case <-t.C:
				app.TryUpdate()
			}
		}
	})
}

// OnDismount stops listening.
func (s *AppStatus) OnDismount() {
	if s.stopVisible != nil {
		s.stopVisible()
	}
	if s.gone != nil {
		close(s.gone)
		s.gone = nil
	}
}

// OnAppUpdate is go-app's signal that a new deployment is ready. The
// context go-app hands it on the first signal can still say there is none
// (AppUpdateAvailable), so the signal alone decides.
func (s *AppStatus) OnAppUpdate(ctx app.Context) { s.updateReady = true }

// OnAppInstallChange follows whether the browser offers installation.
func (s *AppStatus) OnAppInstallChange(ctx app.Context) { s.installable = ctx.IsAppInstallable() }

// installLabel is the Install button's label, which its place, kept while
// the browser offers no installation, carries too: the same width.
func installLabel() []app.UI {
	return []app.UI{app.Text("Install"), app.Span().Class("install-more").Text(" app")}
}

// Render draws the button and the notice when they apply.
func (s *AppStatus) Render() app.UI {
	return app.Div().Class("app-status").Body(
		app.If(s.installable, func() app.UI {
			// "Install" alone on a one-column layout (web/style.css), where it
			// shares the header's first row with the contract picker.
			return app.Button().ID("install").Class("button").Aria("label", "Install app").Title("Install Riskchart as an app").
				Body(installLabel()...).
				OnClick(func(ctx app.Context, e app.Event) {
					if s.apple {
						s.hint = !s.hint
						return
					}
					ctx.ShowAppInstallPrompt()
				})
		}).Else(func() app.UI {
			// The button's place, unseen, on a header wide enough to hold it
			// in the toggles' row (web/style.css): the browser offers
			// installation whenever it likes, and the button then takes this
			// place instead of wrapping the row and moving the chart down.
			return app.Span().Class("button install-place").Aria("hidden", true).Body(installLabel()...)
		}),
		app.If(s.installable && s.hint, func() app.UI {
			return app.P().ID("install-hint").Class("notice update-notice").Attr("role", "status").
				Text("To install Riskchart, open the Share menu and choose “Add to Home Screen” (or “Add to Dock”).")
		}),
		app.If(s.updateReady, func() app.UI {
			return app.P().ID("update-banner").Class("notice update-notice").Attr("role", "status").Body(
				app.Text("A new version of Riskchart is ready. "),
				app.Button().ID("update-reload").Class("button").Text("Reload").OnClick(func(ctx app.Context, e app.Event) { ctx.Reload() }),
			)
		}),
	)
}
