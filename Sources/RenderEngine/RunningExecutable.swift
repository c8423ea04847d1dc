import Foundation

/// The binary this process runs. argv[0] is only "reel" when it was found on the PATH,
/// so the kernel's link is asked first.
public enum RunningExecutable {
    public static var path: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments.first ?? ""
    }
}
