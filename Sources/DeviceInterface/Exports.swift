// The seam's telemetry (`AccelerationTelemetry`) hands out AccelerationData's values
// (samples, their origin, the sensor's axis, its losses), so importing DeviceInterface
// brings them with it. They live below the seam, not in it, so that Measurements can
// analyse a recording without depending on anything that reaches a device.
@_exported import AccelerationData
