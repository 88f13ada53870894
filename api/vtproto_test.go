// SPDX-License-Identifier: Apache-2.0

package api_test

import (
	"fmt"
	"math/rand"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/fakenode"
)

// The runtime sends requests encoded by the generated MarshalVT (nrikit's
// pre-encoding); plugins decode them with protobuf's own decoder. These
// tests hold the two to the same wire.

// allMessages is a new instance of every message type of api/nrikit.proto.
func allMessages(t testing.TB) []proto.Message {
	t.Helper()
	var all []proto.Message
	var walk func(protoreflect.MessageDescriptors)
	walk = func(ds protoreflect.MessageDescriptors) {
		for i := 0; i < ds.Len(); i++ {
			d := ds.Get(i)
			if d.IsMapEntry() {
				continue
			}
			all = append(all, newMessage(t, d))
			walk(d.Messages())
		}
	}
	walk(api.File_nrikit_proto.Messages())
	if len(all) == 0 {
		t.Fatal("no message types found")
	}
	return all
}

func newMessage(t testing.TB, d protoreflect.MessageDescriptor) proto.Message {
	t.Helper()
	mt, err := protoregistry.GlobalTypes.FindMessageByName(d.FullName())
	if err != nil {
		t.Fatal(err)
	}
	return mt.New().Interface()
}

// vtCodec is what the generated code adds to a message type.
type vtCodec interface {
	MarshalVT() ([]byte, error)
	SizeVT() int
}

// checkRoundTrip asserts that m's generated encoding decodes, with
// protobuf's decoder, to a message equal to m, and that the generated
// size agrees with protobuf's and with the encoding.
func checkRoundTrip(t *testing.T, m proto.Message) {
	t.Helper()
	name := m.ProtoReflect().Descriptor().FullName()
	vt, ok := m.(vtCodec)
	if !ok {
		t.Fatalf("%s has no generated MarshalVT/SizeVT: run make generate", name)
	}
	b, err := vt.MarshalVT()
	if err != nil {
		t.Fatalf("%s: MarshalVT: %v", name, err)
	}
	if got, want := vt.SizeVT(), proto.Size(m); got != want || len(b) != want {
		t.Fatalf("%s: SizeVT %d, len(MarshalVT) %d, proto.Size %d", name, got, len(b), want)
	}
	back := m.ProtoReflect().New().Interface()
	if err := proto.Unmarshal(b, back); err != nil {
		t.Fatalf("%s: proto.Unmarshal of MarshalVT's encoding: %v", name, err)
	}
	if !proto.Equal(back, m) {
		t.Fatalf("%s: decodes to\n%v\nwant\n%v", name, back, m)
	}
}

// TestMarshalVTEveryMessage fills every message type with random values,
// unknown fields included, and checks the round trip.
func TestMarshalVTEveryMessage(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, m := range allMessages(t) {
		name := string(m.ProtoReflect().Descriptor().FullName())
		t.Run(name, func(t *testing.T) {
			checkRoundTrip(t, m) // empty
			for i := 0; i < 50; i++ {
				r := m.ProtoReflect().New()
				fill(rng, r, 4)
				checkRoundTrip(t, r.Interface())
			}
		})
	}
}

// TestMarshalVTRealisticNode checks the round trip for a busy node's pods
// and containers and for the requests an event sends.
func TestMarshalVTRealisticNode(t *testing.T) {
	pods, ctrs := fakenode.Node(20, 5)
	for _, p := range pods {
		checkRoundTrip(t, p)
	}
	for _, c := range ctrs {
		checkRoundTrip(t, c)
	}
	checkRoundTrip(t, &api.SynchronizeRequest{Pods: pods, Containers: ctrs, More: true})
	checkRoundTrip(t, realisticCreate())
	checkRoundTrip(t, realisticValidate())
}

// TestMarshalVTUnknownFields: fields a newer peer added survive an
// encoding, and a message whose only content is another message's
// encoding, carried as unknown fields, encodes to that encoding verbatim
// (what nrikit's pre-encoded requests rely on).
func TestMarshalVTUnknownFields(t *testing.T) {
	req := realisticCreate()
	unknown := protowire.AppendTag(nil, 999, protowire.BytesType)
	unknown = protowire.AppendString(unknown, "from a newer peer")
	unknown = protowire.AppendTag(unknown, 1000, protowire.VarintType)
	unknown = protowire.AppendVarint(unknown, 42)
	req.GetContainer().ProtoReflect().SetUnknown(unknown)
	req.ProtoReflect().SetUnknown(unknown)
	checkRoundTrip(t, req)

	b, err := req.MarshalVT()
	if err != nil {
		t.Fatal(err)
	}
	var back api.CreateContainerRequest
	if err := proto.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if got := back.ProtoReflect().GetUnknown(); string(got) != string(unknown) {
		t.Fatalf("unknown fields of the request came back as %x, want %x", got, unknown)
	}
	if got := back.GetContainer().ProtoReflect().GetUnknown(); string(got) != string(unknown) {
		t.Fatalf("unknown fields of the container came back as %x, want %x", got, unknown)
	}

	raw := &api.CreateContainerRequest{}
	raw.ProtoReflect().SetUnknown(b)
	for what, encode := range map[string]func(proto.Message) ([]byte, error){
		"proto.Marshal": proto.Marshal,
		"MarshalVT":     func(proto.Message) ([]byte, error) { return raw.MarshalVT() },
	} {
		got, err := encode(raw)
		if err != nil || string(got) != string(b) {
			t.Fatalf("%s of the pre-encoded message: %d bytes (%v), want the %d original bytes", what, len(got), err, len(b))
		}
	}
}

// fill sets every field of m to random values, nested messages down to
// depth levels, and sometimes adds unknown fields.
func fill(rng *rand.Rand, m protoreflect.Message, depth int) {
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		f := fields.Get(i)
		if rng.Intn(4) == 0 {
			continue // left unset
		}
		switch {
		case f.IsMap():
			mp := m.Mutable(f).Map()
			for n := rng.Intn(4); n > 0; n-- {
				key := randomScalar(rng, f.MapKey()).MapKey()
				mp.Set(key, randomValue(rng, f.MapValue(), mp.NewValue, depth))
			}
		case f.IsList():
			l := m.Mutable(f).List()
			for n := rng.Intn(4); n > 0; n-- {
				l.Append(randomValue(rng, f, l.NewElement, depth))
			}
		default:
			if f.Message() != nil && depth == 0 {
				continue
			}
			m.Set(f, randomValue(rng, f, func() protoreflect.Value { return m.NewField(f) }, depth))
		}
	}
	if rng.Intn(8) == 0 {
		b := protowire.AppendTag(nil, protowire.Number(5000+rng.Intn(1000)), protowire.VarintType)
		m.SetUnknown(protowire.AppendVarint(b, rng.Uint64()))
	}
}

func randomValue(rng *rand.Rand, f protoreflect.FieldDescriptor, newMessage func() protoreflect.Value, depth int) protoreflect.Value {
	if f.Message() == nil {
		return randomScalar(rng, f)
	}
	v := newMessage()
	if depth > 0 {
		fill(rng, v.Message(), depth-1)
	}
	return v
}

// randomScalar is a random value of a scalar field; zero often, since
// proto3 does not encode zeros and a generated encoder could get that wrong.
func randomScalar(rng *rand.Rand, f protoreflect.FieldDescriptor) protoreflect.Value {
	zero := rng.Intn(5) == 0
	u := rng.Uint64() >> uint(rng.Intn(64))
	if zero {
		u = 0
	}
	if rng.Intn(4) == 0 {
		u = -u // negative numbers take ten bytes
	}
	switch f.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(u&1 == 1)
	case protoreflect.EnumKind:
		return protoreflect.ValueOfEnum(protoreflect.EnumNumber(int32(u)))
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(u))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(int64(u))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(u))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(u)
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(float32(int32(u)) / 7)
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(float64(int64(u)) / 7)
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(randomString(rng, zero))
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes([]byte(randomString(rng, zero)))
	}
	panic(fmt.Sprintf("unhandled field kind %v of %s", f.Kind(), f.FullName()))
}

func randomString(rng *rand.Rand, empty bool) string {
	if empty {
		return ""
	}
	runes := []rune("az09=/.-_ éß中🙂")
	s := make([]rune, 1+rng.Intn(200))
	for i := range s {
		s[i] = runes[rng.Intn(len(runes))]
	}
	return string(s)
}

// FuzzMarshalVT decodes arbitrary bytes as one of api's message types (the
// first byte picks which), with protobuf's decoder, then checks that the
// generated encoding of the result round-trips: fields, maps and unknown
// fields of any shape.
func FuzzMarshalVT(f *testing.F) {
	all := allMessages(f)
	index := map[protoreflect.FullName]byte{}
	for i, m := range all {
		index[m.ProtoReflect().Descriptor().FullName()] = byte(i)
	}
	for _, m := range []proto.Message{realisticCreate(), realisticValidate(), realisticCreate().GetPod()} {
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(append([]byte{index[m.ProtoReflect().Descriptor().FullName()]}, b...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		m := all[int(data[0])%len(all)].ProtoReflect().New().Interface()
		if proto.Unmarshal(data[1:], m) != nil {
			return
		}
		checkRoundTrip(t, m)
	})
}
