// SPDX-License-Identifier: Apache-2.0

package api

import (
	"context"
	"reflect"
	"testing"
)

// TestPluginBaseAnswersEverything calls every PluginService method of the
// zero PluginBase: each returns a non-nil, empty response and no error.
func TestPluginBaseAnswersEverything(t *testing.T) {
	var svc PluginService = PluginBase{}
	v := reflect.ValueOf(svc)
	ctx := reflect.ValueOf(context.Background())
	typ := reflect.TypeOf((*PluginService)(nil)).Elem()
	for i := 0; i < typ.NumMethod(); i++ {
		name := typ.Method(i).Name
		m := v.MethodByName(name)
		req := reflect.New(m.Type().In(1).Elem())
		out := m.Call([]reflect.Value{ctx, req})
		if !out[1].IsNil() {
			t.Errorf("%s: error %v", name, out[1].Interface())
		}
		if out[0].IsNil() {
			t.Errorf("%s: nil response", name)
			continue
		}
		if !reflect.DeepEqual(out[0].Elem().Interface(), reflect.New(out[0].Type().Elem()).Elem().Interface()) {
			t.Errorf("%s: response not empty: %v", name, out[0].Interface())
		}
	}
	rsp, _ := PluginBase{Events: MaskOf(Event_CREATE_CONTAINER)}.Configure(context.Background(), nil)
	if EventMask(rsp.Events) != MaskOf(Event_CREATE_CONTAINER) {
		t.Errorf("Configure subscribed to %#x", rsp.Events)
	}
}
