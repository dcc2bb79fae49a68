package main

import "syscall/js"

// The audio library under Ebitengine (github.com/ebitengine/oto/v3,
// v3.3.3 and its main branch alike) starts the page's Web Audio at the
// player's first key, click or touch: at every keyup, mouseup and
// touchend until then it calls the AudioContext's resume() and hangs a
// Go function on the promise; the first to run releases it. A browser
// keeps resume() pending until the page has had a user activation, and
// Escape is a key that gives none: Escape then an arrow key left two
// promises pending that resolved together, and the second called the
// released function, which Go's syscall/js reports in the console as
// "call to released function". Two releases close together (a key and a
// click while the audio device starts) do the same. TestBrowserKeys
// (internal/e2e/web) presses those keys.
func init() { guardAudioResume() }

// guardAudioResume wraps the browser's AudioContext.prototype.resume so
// that a call made while an earlier one is pending still asks the
// context to resume, but returns a promise that never settles: the
// earlier promise settles when the context starts (a browser resolves
// all pending resume() promises then), so what waits on it runs once.
func guardAudioResume() {
	js.Global().Get("Function").New("name", `
		const cls = globalThis[name];
		if (typeof cls !== "function" || typeof cls.prototype.resume !== "function") return;
		const resume = cls.prototype.resume;
		const pending = new WeakSet();
		cls.prototype.resume = function () {
			const p = resume.call(this);
			if (pending.has(this)) return new Promise(() => {});
			pending.add(this);
			const done = () => { pending.delete(this); };
			p.then(done, done);
			return p;
		};
	`).Invoke("AudioContext")
}
