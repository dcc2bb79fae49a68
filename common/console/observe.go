package console

// SetLineObserver makes the table call fn with every line it is about
// to execute, from the command buffer, ExecuteString or
// ExecuteCommandLine, except the lines a command executes while it runs
// (they run again when that command does) and rcon's (ExecuteRemote).
// The event journal (common/journal) records the observed lines and
// replays each with ExecuteIsolated. nil removes it. Call it on the
// goroutine that executes the table.
func (t *Table) SetLineObserver(fn func(line string)) { t.observer = fn }

// observeLine passes line to the observer unless a command is running
// or it came through rcon, and counts the line as running until the
// function it returns is called.
func (t *Table) observeLine(line string) func() {
	if t.running == 0 && t.source != fromRemote {
		t.observer(line)
	}
	t.running++
	return func() { t.running-- }
}

// ExecuteIsolated runs one line at once, as ExecuteString does, and
// throws away any text it queues (an exec's file, a vstr's value): a
// journal's replay runs every line the observer saw, those included,
// each at its own time, so running the queued text too would run it
// twice. Text a command appends with Append is not thrown away.
func (t *Table) ExecuteIsolated(line string) {
	t.bufMu.Lock()
	prev := t.sub
	t.sub = &cbuf{}
	t.bufMu.Unlock()
	t.executeLine(line)
	t.bufMu.Lock()
	t.sub = prev
	t.bufMu.Unlock()
}
