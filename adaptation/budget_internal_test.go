// SPDX-License-Identifier: Apache-2.0

// The public budget checks against internal/admission's, which newBudget converts them to.

package adaptation

import (
	"testing"

	"github.com/nrikit/nrikit/internal/admission"
)

func TestBudgetChecksAreAdmissions(t *testing.T) {
	for _, c := range []struct {
		public BudgetCheck
		comp   admission.BudgetCheck
	}{
		{BudgetWarn, admission.BudgetWarn},
		{BudgetRefuse, admission.BudgetRefuse},
		{BudgetOff, admission.BudgetOff},
	} {
		if admission.BudgetCheck(c.public) != c.comp {
			t.Errorf("BudgetCheck %q converts to %q", c.public, c.comp)
		}
	}
}
