package adaptation_test

func (e *env) dumpLog() {
	for _, en := range e.hook.AllEntries() {
		e.t.Logf("%s %s %v", en.Level, en.Message, en.Data)
	}
}
