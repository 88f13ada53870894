package main

import (
	"fmt"

	nri "github.com/containerd/nri/pkg/adaptation"
	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/internal/fakenode"
)

func main() {
	p, c := fakenode.Node(1, 1)
	fmt.Println(len(p), len(c), nri.DefaultPluginRequestTimeout, adaptation.DefaultSyncTimeout)
}
