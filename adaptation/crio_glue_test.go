// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"testing"

	"google.golang.org/protobuf/proto"

	nri "github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
)

// The adaptation names CRI-O's internal/nri declares its Container,
// LinuxContainer and Domain interfaces with; a port changes only the import.
var _ = []any{
	(*nri.ContainerEviction)(nil), (*nri.User)(nil), (*nri.POSIXRlimit)(nil),
	(*nri.LinuxNetDevice)(nil), (*nri.LinuxRdt)(nil), (*nri.LinuxIOPriority)(nil),
	(*nri.LinuxScheduler)(nil), (*nri.Hooks)(nil), (*nri.LinuxNamespace)(nil),
	(*nri.LinuxDevice)(nil), (*nri.ContainerUpdate)(nil), nri.ContainerState(0),
}

// CRI-O's glue converts with the argument shapes below (internal/nri's
// nri.Int(lnx.GetOOMScoreAdj()) takes a *int that is nil when unset;
// server/nri-api.go passes pointers to locals); they must compile and mean
// what they meant with the reference.
func TestCRIOConversionShapes(t *testing.T) {
	oomScoreAdj := -998
	var unsetOOMScoreAdj *int
	shares, period := uint64(1024), uint64(100000)
	quota, limit := int64(50000), int64(1<<30)

	if got := nri.Int(unsetOOMScoreAdj); got != nil {
		t.Errorf("nri.Int of a nil *int gave %v, want nil (unset)", got)
	}
	for _, c := range []struct {
		name      string
		got, want proto.Message
	}{
		{"nri.Int(*int)", nri.Int(&oomScoreAdj), &api.OptionalInt{Value: -998}},
		{"api.UInt64(*uint64)", api.UInt64(&shares), &api.OptionalUInt64{Value: 1024}},
		{"api.UInt64(*uint64) period", api.UInt64(&period), &api.OptionalUInt64{Value: 100000}},
		{"api.Int64(*int64)", api.Int64(&quota), &api.OptionalInt64{Value: 50000}},
		{"api.Int64(*int64) limit", api.Int64(&limit), &api.OptionalInt64{Value: 1 << 30}},
	} {
		if !proto.Equal(c.got, c.want) {
			t.Errorf("%s gave %v, want %v", c.name, c.got, c.want)
		}
	}
	opt := nri.Int(&oomScoreAdj)
	oomScoreAdj = 0 // the optional holds a copy, as in the reference
	if got := opt.GetValue(); got != -998 {
		t.Errorf("nri.Int followed the *int to %d, want the copy -998", got)
	}
}
