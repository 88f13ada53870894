module github.com/nrikit/nrikit

go 1.24.0

require (
	github.com/BurntSushi/toml v1.2.0
	github.com/containerd/log v0.1.0
	github.com/containerd/ttrpc v1.2.8
	github.com/moby/sys/mountinfo v0.6.2
	github.com/opencontainers/runtime-spec v1.3.0
	github.com/planetscale/vtprotobuf v0.6.1-0.20240319094008-0393e58bdf10
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/sirupsen/logrus v1.9.3
	github.com/tetratelabs/wazero v1.9.0
	go.uber.org/goleak v1.3.0
	go.yaml.in/yaml/v3 v3.0.6
	google.golang.org/grpc v1.69.2
	google.golang.org/protobuf v1.36.0
)

require (
	golang.org/x/sys v0.26.0 // indirect
	golang.org/x/text v0.19.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20241021214115-324edc3d5d38 // indirect
)
