// SPDX-License-Identifier: Apache-2.0

// Package validator is nrikit's default validator: the operator's policy on
// what NRI plugins may change in a container being created, and on which
// plugins must have handled its creation. A runtime turns it on with
// adaptation.WithDefaultValidator, or with the default_validator table of
// adaptation.Config; it runs after every plugin's CreateContainer, beside the
// validator plugins.
//
// The type and config keys are those of the reference NRI runtime's default
// validator (v0.12.5), so that an operator's configuration keeps its meaning.
package validator
