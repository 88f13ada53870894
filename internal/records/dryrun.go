// SPDX-License-Identifier: Apache-2.0

// Verdicts of validators run dry, kept with the record of the creation they judged.

package records

// Verdict is what a validator run dry (validation = "dry-run", or the
// default validator's dry_run) said of a creation it did not decide.
type Verdict struct {
	// Validator is the plugin's "idx-name", or DefaultValidator.
	Validator string
	// Rejected: it would have rejected the creation, for Reason.
	Rejected bool
	Reason   string
}

// DefaultValidator names the default validator in a Verdict.
const DefaultValidator = "default_validator"

// maxDryRunVerdicts bounds the verdicts one record keeps: the first ones.
const maxDryRunVerdicts = 32

// DryRun adds a verdict on container id's creation, if it is recorded. A
// plugin's verdict comes after the creation returned: its validation was
// queued.
func (r *Store) DryRun(id string, v Verdict) {
	if !r.On() {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	i, ok := r.index[id]
	if !ok {
		return
	}
	if s := &r.slots[i]; len(s.dryRun) < maxDryRunVerdicts {
		s.dryRun = append(s.dryRun, v)
	}
}
