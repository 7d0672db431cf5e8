// `import Hapbridge` is all a user's package needs: devices by address, actuator
// profiles, patterns (AHAP, .haptic, the system library, built in code), the engine
// and its players, the play session, the bench procedures and the feedback
// generators. The modules below it stay separate targets; this one re-exports what a
// user touches, so a new module is one line here, not a new product for every user.
@_exported import Actuators
@_exported import Bench
@_exported import BridgeLink
@_exported import DeviceInterface
@_exported import Devices
@_exported import HapticEngine
@_exported import Haptics
