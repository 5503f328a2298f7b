package replica

// Logger receives the core's rare events an operator reads (an election,
// a view started, a restart from disk, a dropped message). The core calls
// it off its hot path only, with a message and alternating keys and
// values, so that it stays free of any logging library: the server hands
// it a zap logger (replica/server), tests a recorder or nothing.
type Logger interface {
	Debug(msg string, keysAndValues ...any)
	Info(msg string, keysAndValues ...any)
	Warn(msg string, keysAndValues ...any)
	Error(msg string, keysAndValues ...any)
}

// nopLogger is the Logger of a core given none.
type nopLogger struct{}

func (nopLogger) Debug(string, ...any) {}
func (nopLogger) Info(string, ...any)  {}
func (nopLogger) Warn(string, ...any)  {}
func (nopLogger) Error(string, ...any) {}
