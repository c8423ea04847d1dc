import Foundation

/// One readable line for a file-system error: Foundation's errors on Linux print as
/// `Error Domain=NSCocoaErrorDomain Code=640 …`; the POSIX reason underneath
/// ("No space left on device") is what an operator needs.
enum FileErrorText {
    static func describe(_ error: Error) -> String {
        let ns = error as NSError
        if ns.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(ns.code))) }
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return "\(error)"
    }

    /// The farm's code for a failed file operation: a full disk (or quota) is `storageFull`,
    /// any other refusal of the file system `ioFailed`; nil for an error not of a file.
    static func code(of error: Error) -> FarmErrorCode? {
        let ns = error as NSError
        let posix = ns.domain == NSPOSIXErrorDomain ? ns.code
            : (ns.userInfo[NSUnderlyingErrorKey] as? NSError).flatMap { $0.domain == NSPOSIXErrorDomain ? $0.code : nil }
        if let posix { return posix == Int(ENOSPC) || posix == Int(EDQUOT) ? .storageFull : .ioFailed }
        if ns.domain == NSCocoaErrorDomain, (CocoaError.fileNoSuchFile.rawValue...CocoaError.fileWriteVolumeReadOnly.rawValue).contains(ns.code) {
            return ns.code == CocoaError.fileWriteOutOfSpace.rawValue ? .storageFull : .ioFailed
        }
        return nil
    }
}
