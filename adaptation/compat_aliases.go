// SPDX-License-Identifier: Apache-2.0

// The reference's pkg/adaptation type aliases and constants.

package adaptation

import "github.com/nrikit/nrikit/api"

// The api types, constants and defaults under the names a runtime's glue
// already uses through the reference pkg/adaptation, so that porting the
// glue is an import change: nri.RunPodSandboxRequest, nri.ContainerAdjustment,
// nri.ContainerState_CONTAINER_RUNNING and the like keep compiling. New code
// may use the api package directly; both name the same types.

// Request and response types of the events and of the plugin handshake.
type (
	RegisterPluginRequest    = api.RegisterPluginRequest
	RegisterPluginResponse   = api.Empty
	UpdateContainersRequest  = api.UpdateContainersRequest
	UpdateContainersResponse = api.UpdateContainersResponse

	ConfigureRequest    = api.ConfigureRequest
	ConfigureResponse   = api.ConfigureResponse
	SynchronizeRequest  = api.SynchronizeRequest
	SynchronizeResponse = api.SynchronizeResponse
	// ShutdownRequest carries nrikit's reason; peers that expect the
	// reference's Empty skip the field.
	ShutdownRequest  = api.ShutdownRequest
	ShutdownResponse = api.Empty

	CreateContainerRequest  = api.CreateContainerRequest
	CreateContainerResponse = api.CreateContainerResponse
	UpdateContainerRequest  = api.UpdateContainerRequest
	UpdateContainerResponse = api.UpdateContainerResponse
	StopContainerRequest    = api.StopContainerRequest
	StopContainerResponse   = api.StopContainerResponse

	StateChangeEvent             = api.StateChangeEvent
	StateChangeResponse          = api.Empty
	RunPodSandboxRequest         = api.RunPodSandboxRequest
	RunPodSandboxResponse        = api.RunPodSandboxResponse
	UpdatePodSandboxRequest      = api.UpdatePodSandboxRequest
	UpdatePodSandboxResponse     = api.UpdatePodSandboxResponse
	StopPodSandboxRequest        = api.StopPodSandboxRequest
	StopPodSandboxResponse       = api.StopPodSandboxResponse
	RemovePodSandboxRequest      = api.RemovePodSandboxRequest
	RemovePodSandboxResponse     = api.RemovePodSandboxResponse
	PostUpdatePodSandboxRequest  = api.PostUpdatePodSandboxRequest
	PostUpdatePodSandboxResponse = api.PostUpdatePodSandboxResponse
	StartContainerRequest        = api.StartContainerRequest
	StartContainerResponse       = api.StartContainerResponse
	RemoveContainerRequest       = api.RemoveContainerRequest
	RemoveContainerResponse      = api.RemoveContainerResponse
	PostCreateContainerRequest   = api.PostCreateContainerRequest
	PostCreateContainerResponse  = api.PostCreateContainerResponse
	PostStartContainerRequest    = api.PostStartContainerRequest
	PostStartContainerResponse   = api.PostStartContainerResponse
	PostUpdateContainerRequest   = api.PostUpdateContainerRequest
	PostUpdateContainerResponse  = api.PostUpdateContainerResponse

	ValidateContainerAdjustmentRequest  = api.ValidateContainerAdjustmentRequest
	ValidateContainerAdjustmentResponse = api.ValidateContainerAdjustmentResponse
	PluginInstance                      = api.PluginInstance
)

// The pod, container, adjustment and update data model.
type (
	PodSandbox               = api.PodSandbox
	LinuxPodSandbox          = api.LinuxPodSandbox
	Container                = api.Container
	ContainerAdjustment      = api.ContainerAdjustment
	LinuxContainerAdjustment = api.LinuxContainerAdjustment
	ContainerUpdate          = api.ContainerUpdate
	LinuxContainerUpdate     = api.LinuxContainerUpdate
	ContainerEviction        = api.ContainerEviction
	ContainerState           = api.ContainerState
	KeyValue                 = api.KeyValue
	Mount                    = api.Mount
	LinuxContainer           = api.LinuxContainer
	LinuxNamespace           = api.LinuxNamespace
	LinuxResources           = api.LinuxResources
	LinuxCPU                 = api.LinuxCPU
	LinuxMemory              = api.LinuxMemory
	LinuxMemoryPolicy        = api.LinuxMemoryPolicy
	LinuxDevice              = api.LinuxDevice
	LinuxDeviceCgroup        = api.LinuxDeviceCgroup
	LinuxIOPriority          = api.LinuxIOPriority
	LinuxSeccomp             = api.LinuxSeccomp
	LinuxNetDevice           = api.LinuxNetDevice
	LinuxScheduler           = api.LinuxScheduler
	LinuxSchedulerPolicy     = api.LinuxSchedulerPolicy
	LinuxSchedulerFlag       = api.LinuxSchedulerFlag
	LinuxRdt                 = api.LinuxRdt
	CDIDevice                = api.CDIDevice
	HugepageLimit            = api.HugepageLimit
	Hooks                    = api.Hooks
	Hook                     = api.Hook
	POSIXRlimit              = api.POSIXRlimit
	SecurityProfile          = api.SecurityProfile
	User                     = api.User
	Image                    = api.Image

	Event     = api.Event
	EventMask = api.EventMask
)

// The optional-value wrappers of adjustments and updates.
type (
	OptionalString   = api.OptionalString
	OptionalInt      = api.OptionalInt
	OptionalInt32    = api.OptionalInt32
	OptionalUInt32   = api.OptionalUInt32
	OptionalInt64    = api.OptionalInt64
	OptionalUInt64   = api.OptionalUInt64
	OptionalBool     = api.OptionalBool
	OptionalFileMode = api.OptionalFileMode
)

// Events, container states and security profile kinds.
//
//nolint:revive // the generated names, as the reference spells them
const (
	Event_UNKNOWN                       = api.Event_UNKNOWN
	Event_RUN_POD_SANDBOX               = api.Event_RUN_POD_SANDBOX
	Event_UPDATE_POD_SANDBOX            = api.Event_UPDATE_POD_SANDBOX
	Event_POST_UPDATE_POD_SANDBOX       = api.Event_POST_UPDATE_POD_SANDBOX
	Event_STOP_POD_SANDBOX              = api.Event_STOP_POD_SANDBOX
	Event_REMOVE_POD_SANDBOX            = api.Event_REMOVE_POD_SANDBOX
	Event_CREATE_CONTAINER              = api.Event_CREATE_CONTAINER
	Event_POST_CREATE_CONTAINER         = api.Event_POST_CREATE_CONTAINER
	Event_START_CONTAINER               = api.Event_START_CONTAINER
	Event_POST_START_CONTAINER          = api.Event_POST_START_CONTAINER
	Event_UPDATE_CONTAINER              = api.Event_UPDATE_CONTAINER
	Event_POST_UPDATE_CONTAINER         = api.Event_POST_UPDATE_CONTAINER
	Event_STOP_CONTAINER                = api.Event_STOP_CONTAINER
	Event_REMOVE_CONTAINER              = api.Event_REMOVE_CONTAINER
	Event_VALIDATE_CONTAINER_ADJUSTMENT = api.Event_VALIDATE_CONTAINER_ADJUSTMENT
	ValidEvents                         = api.ValidEvents

	ContainerState_CONTAINER_UNKNOWN = api.ContainerState_CONTAINER_UNKNOWN
	ContainerState_CONTAINER_CREATED = api.ContainerState_CONTAINER_CREATED
	ContainerState_CONTAINER_PAUSED  = api.ContainerState_CONTAINER_PAUSED
	ContainerState_CONTAINER_RUNNING = api.ContainerState_CONTAINER_RUNNING
	ContainerState_CONTAINER_STOPPED = api.ContainerState_CONTAINER_STOPPED
	ContainerState_CONTAINER_EXITED  = api.ContainerState_CONTAINER_STOPPED

	SecurityProfile_RUNTIME_DEFAULT = api.SecurityProfile_RUNTIME_DEFAULT
	SecurityProfile_UNCONFINED      = api.SecurityProfile_UNCONFINED
	SecurityProfile_LOCALHOST       = api.SecurityProfile_LOCALHOST
)

// The reference's names of two defaults (DefaultRegistrationTimeout and
// DefaultRequestTimeout here). The reference sets timeouts with the
// package-level SetPluginRegistrationTimeout and SetPluginRequestTimeout;
// nrikit has no package-level settings: use WithRegistrationTimeout and
// WithRequestTimeout, or Config.
const (
	DefaultPluginRegistrationTimeout = DefaultRegistrationTimeout
	DefaultPluginRequestTimeout      = DefaultRequestTimeout
)
