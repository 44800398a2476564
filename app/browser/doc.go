// Package browser is the front end's one door to the browser: fetch, the
// page's URL and history, theme and language, storage, performance marks,
// the console, visibility, clipboard, the framing page, the first
// paint's hand-over and the zone's offset at a date.
// Besides app/echarts, no other package touches app.Window or syscall/js.
package browser
