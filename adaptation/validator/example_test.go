// SPDX-License-Identifier: Apache-2.0

package validator_test

import (
	"fmt"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/adaptation/validator"
)

// A runtime that lets no plugin inject OCI hooks or touch namespaces, and
// requires the plugin "10-policy" for every container except in pods
// annotated "example.com/tolerate-missing-plugins: true".
func ExampleDefaultValidatorConfig() {
	cfg := &validator.DefaultValidatorConfig{
		Enable:                    true,
		RejectOCIHookAdjustment:   true,
		RejectNamespaceAdjustment: true,
		RequiredPlugins:           []string{"10-policy"},
		TolerateMissingAnnotation: "example.com/tolerate-missing-plugins",
	}
	a, err := adaptation.New("my-runtime", "v1.0.0", nil, nil,
		adaptation.WithDisabledExternalConnections(),
		adaptation.WithDefaultValidator(cfg))
	fmt.Println(a != nil, err)
	// Output: true <nil>
}
