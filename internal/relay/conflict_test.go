// SPDX-License-Identifier: Apache-2.0

package relay

import (
	"errors"
	"fmt"
	"testing"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/merge"
)

// TestMergeConflictsMatchErrConflict: every conflict a merge reports, from
// CreateContainer or UpdateContainer, matches the public sentinel and keeps
// its detail; other merge failures do not match it.
func TestMergeConflictsMatchErrConflict(t *testing.T) {
	conflict := &merge.ConflictError{Field: api.Field_Annotations, Key: "a", Owner: "10-a", Plugin: "20-b"}
	err := mergeError(fmt.Errorf("merging: %w", conflict))
	var ce *merge.ConflictError
	if !errors.Is(err, ErrConflict) || !errors.As(err, &ce) || err.Error() != "merging: "+conflict.Error() {
		t.Errorf("conflict became %v", err)
	}
	if err := mergeError(merge.ErrInvalidAdjustment); errors.Is(err, ErrConflict) {
		t.Errorf("%v matches ErrConflict", err)
	}
	if mergeError(nil) != nil {
		t.Error("no error became one")
	}
}
