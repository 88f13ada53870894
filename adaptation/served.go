package adaptation

// runtimeMethods lists, per ttrpc service, the calls nrikit serves on a
// plugin's connection; the guard reports requests for anything else, which
// ttrpc answers with Unimplemented. It must follow what api's
// RegisterRuntimeService registers (TestServedMethodsAreRegistered).
var runtimeMethods = map[string]map[string]bool{
	"nri.pkg.api.v1alpha1.Runtime": {"RegisterPlugin": true, "UpdateContainers": true},
}

func servesRuntime(service, method string) bool {
	return runtimeMethods[service][method]
}
