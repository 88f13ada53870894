// SPDX-License-Identifier: Apache-2.0

// Command sidebyside links nrikit's api package and the reference NRI api
// package (github.com/containerd/nri/pkg/api) into one binary and checks
// that they agree on the wire:
//
//   - the binary starts at all without GOLANG_PROTOBUF_REGISTRATION_CONFLICT,
//     i.e. the two sets of generated messages register without a conflict;
//   - every message and enum of the reference proto file has a counterpart in
//     nrikit with the same field numbers, kinds and cardinalities, the same
//     enum values, and nothing more than nrikit's documented additions;
//   - both ttrpc services have the same methods, and for every request and
//     response type of both services a message with every field set encodes
//     on one side, decodes on the other, and comes back intact, both ways.
//     nrikit's additions must survive a trip through the reference as unknown
//     fields. nrikit's side is also encoded with its generated MarshalVT
//     (how nrikit sends pre-encoded requests), which the reference must
//     decode to the same values.
//
// It prints one line per check and exits 1 if any check failed.
package main

import (
	"fmt"
	"io"
	"os"
	"reflect"
	"sort"
	"strings"

	refapi "github.com/containerd/nri/pkg/api"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/nrikit/nrikit/api"
)

// conflictEnv makes the protobuf runtime tolerate registration conflicts. The
// point of this program is to show that none is needed.
const conflictEnv = "GOLANG_PROTOBUF_REGISTRATION_CONFLICT"

const (
	ourPackage protoreflect.FullName = "nrikit.api.v1"
	refPackage protoreflect.FullName = "nri.pkg.api.v1alpha1"
)

// services are the two NRI ttrpc services: the reference's service name and
// nrikit's generated Go interface for it.
var services = []struct {
	name protoreflect.Name
	ours reflect.Type
}{
	{"Runtime", reflect.TypeOf((*api.RuntimeService)(nil)).Elem()},
	{"Plugin", reflect.TypeOf((*api.PluginService)(nil)).Elem()},
}

// additions are nrikit's fields that the reference does not have, by message
// and field number. The reference must skip them and keep them as unknown
// fields.
var additions = map[protoreflect.FullName][]protoreflect.FieldNumber{
	ourPackage + ".PodSandbox":      {1000}, // state
	ourPackage + ".ShutdownRequest": {1},    // reason; the reference sends Empty
}

// ourOnly are nrikit's types without a reference counterpart of the same
// name. ShutdownRequest travels where the reference has Empty.
var ourOnly = map[protoreflect.FullName]bool{
	ourPackage + ".ShutdownRequest": true,
	ourPackage + ".PodSandboxState": true,
}

func isAddition(fd protoreflect.FieldDescriptor) bool {
	for _, n := range additions[fd.ContainingMessage().FullName()] {
		if n == fd.Number() {
			return true
		}
	}
	return false
}

// report collects the outcome.
type report struct {
	out      io.Writer
	problems int
	warnings int
}

func (r *report) ok(format string, args ...any) {
	fmt.Fprintf(r.out, "ok    "+format+"\n", args...)
}

func (r *report) fail(format string, args ...any) {
	r.problems++
	fmt.Fprintf(r.out, "FAIL  "+format+"\n", args...)
}

func (r *report) warn(format string, args ...any) {
	r.warnings++
	fmt.Fprintf(r.out, "warn  "+format+"\n", args...)
}

func main() {
	if v, ok := os.LookupEnv(conflictEnv); ok {
		fmt.Fprintf(os.Stderr, "sidebyside: %s=%q is set; run without it: the point is that no conflict needs tolerating\n", conflictEnv, v)
		os.Exit(2)
	}
	r := &report{out: os.Stdout}
	run(r)
	if r.problems > 0 {
		fmt.Fprintf(r.out, "FAIL: %d problem(s), %d warning(s)\n", r.problems, r.warnings)
		os.Exit(1)
	}
	fmt.Fprintf(r.out, "PASS: %d warning(s)\n", r.warnings)
}

func run(r *report) {
	ourFile, refFile := api.File_nrikit_proto, refapi.File_pkg_api_api_proto
	checkRegistry(r, ourFile, refFile)
	compareFiles(r, ourFile, refFile)
	pairs := servicePairs(r, refFile)
	cov := newCoverage()
	for _, p := range pairs {
		roundTrip(r, p, cov)
	}
	cov.check(r, pairs)
}

// checkRegistry shows that both files, and a message of each, are in the
// global registry under their own names.
func checkRegistry(r *report, files ...protoreflect.FileDescriptor) {
	var desc []string
	for _, f := range files {
		got, err := protoregistry.GlobalFiles.FindFileByPath(f.Path())
		if err != nil || got != f {
			r.fail("registry: file %s is not registered as itself: %v", f.Path(), err)
			continue
		}
		name := f.Package() + ".PodSandbox"
		mt, err := protoregistry.GlobalTypes.FindMessageByName(name)
		if err != nil || mt.Descriptor().ParentFile() != f {
			r.fail("registry: %s does not resolve to %s: %v", name, f.Path(), err)
			continue
		}
		desc = append(desc, fmt.Sprintf("%s (package %s, %d messages, %d enums, %d services)",
			f.Path(), f.Package(), f.Messages().Len(), f.Enums().Len(), f.Services().Len()))
	}
	r.ok("registry: %s registered side by side, %s unset", strings.Join(desc, " and "), conflictEnv)
}

// pair is one message type on both sides.
type pair struct {
	ours, ref protoreflect.MessageType
}

func (p pair) name() string {
	o, r := p.ours.Descriptor().Name(), p.ref.Descriptor().Name()
	if o == r {
		return string(o)
	}
	return fmt.Sprintf("%s~%s", o, r)
}

// servicePairs checks that nrikit's service interfaces have exactly the
// reference's methods, and returns every distinct (our type, reference type)
// pair of their requests and responses.
func servicePairs(r *report, refFile protoreflect.FileDescriptor) []pair {
	var pairs []pair
	seen := map[[2]protoreflect.FullName]bool{}
	add := func(ours reflect.Type, ref protoreflect.MessageDescriptor, what string) {
		msg, ok := reflect.Zero(ours).Interface().(proto.Message)
		if !ok {
			r.fail("%s: our type %v is not a proto.Message", what, ours)
			return
		}
		rt, err := protoregistry.GlobalTypes.FindMessageByName(ref.FullName())
		if err != nil {
			r.fail("%s: reference type %s: %v", what, ref.FullName(), err)
			return
		}
		p := pair{ours: msg.ProtoReflect().Type(), ref: rt}
		key := [2]protoreflect.FullName{p.ours.Descriptor().FullName(), ref.FullName()}
		if !seen[key] {
			seen[key] = true
			pairs = append(pairs, p)
		}
	}
	for _, svc := range services {
		sd := refFile.Services().ByName(svc.name)
		if sd == nil {
			r.fail("service %s: not in the reference", svc.name)
			continue
		}
		var refMethods, ourMethods []string
		for i := 0; i < sd.Methods().Len(); i++ {
			refMethods = append(refMethods, string(sd.Methods().Get(i).Name()))
		}
		for i := 0; i < svc.ours.NumMethod(); i++ {
			ourMethods = append(ourMethods, svc.ours.Method(i).Name)
		}
		sort.Strings(refMethods)
		sort.Strings(ourMethods)
		if !reflect.DeepEqual(refMethods, ourMethods) {
			r.fail("service %s: our methods %v, reference %v", sd.FullName(), ourMethods, refMethods)
		}
		for i := 0; i < sd.Methods().Len(); i++ {
			md := sd.Methods().Get(i)
			m, ok := svc.ours.MethodByName(string(md.Name()))
			if !ok || m.Type.NumIn() != 2 || m.Type.NumOut() != 2 {
				continue
			}
			what := fmt.Sprintf("%s.%s", svc.name, md.Name())
			add(m.Type.In(1), md.Input(), what+" request")
			add(m.Type.Out(0), md.Output(), what+" response")
		}
		r.ok("service %s: %d methods, same names as nrikit's %v", sd.FullName(), sd.Methods().Len(), svc.ours)
	}
	return pairs
}
