// SPDX-License-Identifier: Apache-2.0

package adaptation

import (
	"testing"

	"github.com/nrikit/nrikit/internal/records"
)

// The public update sources keep their literal values here, and are the
// ones the component records.
func TestUpdateSourcesAreTheComponents(t *testing.T) {
	for public, source := range map[string]records.Source{
		UpdateByReply:    records.ByReply,
		UpdateByCreation: records.ByCreation,
		UpdateByPlugin:   records.ByPlugin,
		UpdateByStop:     records.ByStop,
	} {
		if public != string(source) {
			t.Errorf("public source %q, internal/records records %q", public, source)
		}
	}
}
