import FileAccess
import FirmwareImage

extension FlashPlan {
    /// The image file at `path`, read through the one bounded reader (`FileReader`:
    /// anything but a regular file is refused for what it is, a file over
    /// `FirmwareImageFile.byteLimit` without reading it) and loaded and checked for
    /// `part`. Every way a file cannot be used — missing, a directory, a FIFO, a device,
    /// a link loop, too large, a bad record, an image for another MCU — is one
    /// `FlashError` (`.badImage`, or `.wrongPart`) naming the path, before any board is
    /// touched: `flash` refuses them all alike (status 5, the same JSON).
    public static func loadImage(_ path: String, for part: AVRPart) throws(FlashError) -> FirmwareImage {
        let bytes: [UInt8]
        do { bytes = try FileReader.read(FilePath(path), limit: FirmwareImageFile.byteLimit) } catch {
            throw FlashError(.badImage, "\(error.description) (nothing was erased)")
        }
        do { return try FirmwareImageFile.image(bytes, source: path, part: part) } catch { throw FlashError(error) }
    }
}
