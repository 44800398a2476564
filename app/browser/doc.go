// Package browser is the front end's one door to the browser: fetch, the
// page's URL and history, theme and language, storage, performance marks,
// the console, visibility, clipboard, the framing page and the first
// paint's hand-over.
// Besides app/echarts, no other package touches app.Window or syscall/js.
package browser
