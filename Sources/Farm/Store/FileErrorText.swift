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
}
