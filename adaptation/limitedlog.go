package adaptation

import (
	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/internal/guard"
)

// allowLine asks limit whether a line may be logged now; when it may, the
// entry to log it with says how many lines were held back before it.
func allowLine(limit *guard.Limiter, log *logrus.Entry) (*logrus.Entry, bool) {
	ok, suppressed := limit.Allow()
	if !ok {
		return nil, false
	}
	if suppressed > 0 {
		log = log.WithField("suppressed", suppressed)
	}
	return log, true
}
