// SPDX-License-Identifier: Apache-2.0

// Logging with the caller's context: WithContextLogger, WithLoggerFromContext.

package adaptation

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/sirupsen/logrus"
)

// ContextLogger is a logger that takes the caller's context on every line,
// shaped like the reference's pkg/log Logger, so a runtime's shim for it
// (one that derives fields from the context) is passed as it is to
// WithContextLogger.
type ContextLogger interface {
	Debugf(ctx context.Context, format string, args ...any)
	Infof(ctx context.Context, format string, args ...any)
	Warnf(ctx context.Context, format string, args ...any)
	Errorf(ctx context.Context, format string, args ...any)
}

// WithContextLogger sends nrikit's log lines to l: each line is its message
// followed by its fields (key=value, sorted). A line about a call the
// runtime made (an event method, Start, Stop) gets that call's context;
// other lines get context.Background(). It replaces WithLogger and
// WithLoggerFromContext given before it.
func WithContextLogger(l ContextLogger) Option {
	return func(o *options) error {
		if l == nil {
			return errors.New("nrikit: nil context logger")
		}
		entry := logrus.NewEntry(newForwardingLogger(l))
		o.logger = entry
		o.logFromContext = func(ctx context.Context) *logrus.Entry { return entry.WithContext(ctx) }
		return nil
	}
}

// WithLoggerFromContext makes nrikit log a line about a call the runtime
// made (an event method, Start, Stop) to fn(ctx) of that call's context, so
// the line carries the fields the runtime keeps in it (containerd/log's G
// fits); nrikit's own fields are added, except where fn(ctx) has a field of
// the same name. Other lines go to
// fn(context.Background()). It replaces WithLogger and WithContextLogger
// given before it.
func WithLoggerFromContext(fn func(context.Context) *logrus.Entry) Option {
	return func(o *options) error {
		if fn == nil {
			return errors.New("nrikit: nil logger function")
		}
		base := fn(context.Background())
		if base == nil {
			return errors.New("nrikit: the logger function gives no logger for context.Background()")
		}
		o.logger, o.logFromContext = base, fn
		return nil
	}
}

// newForwardingLogger is a logrus logger that writes nothing itself and
// hands every line, with its context, to l.
func newForwardingLogger(l ContextLogger) *logrus.Logger {
	logger := logrus.New()
	logger.SetOutput(io.Discard)
	logger.SetFormatter(discardFormatter{})
	logger.SetLevel(logrus.TraceLevel) // l decides what it keeps
	logger.AddHook(forwardHook{l})
	return logger
}

type discardFormatter struct{}

func (discardFormatter) Format(*logrus.Entry) ([]byte, error) { return nil, nil }

// forwardHook hands each logrus line to a ContextLogger.
type forwardHook struct{ to ContextLogger }

func (forwardHook) Levels() []logrus.Level { return logrus.AllLevels }

func (h forwardHook) Fire(e *logrus.Entry) error {
	ctx := e.Context
	if ctx == nil {
		ctx = context.Background()
	}
	line := lineWithFields(e.Message, e.Data)
	switch {
	case e.Level >= logrus.DebugLevel:
		h.to.Debugf(ctx, "%s", line)
	case e.Level == logrus.InfoLevel:
		h.to.Infof(ctx, "%s", line)
	case e.Level == logrus.WarnLevel:
		h.to.Warnf(ctx, "%s", line)
	default:
		h.to.Errorf(ctx, "%s", line)
	}
	return nil
}

// lineWithFields is msg followed by the fields, sorted, as key=value; a
// value with spaces, quotes or an equals sign is quoted.
func lineWithFields(msg string, fields logrus.Fields) string {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(msg)
	for _, k := range keys {
		v := fmt.Sprint(fields[k])
		if strings.ContainsAny(v, " \"=\t\n") || v == "" {
			v = strconv.Quote(v)
		}
		fmt.Fprintf(&b, " %s=%s", k, v)
	}
	return b.String()
}
