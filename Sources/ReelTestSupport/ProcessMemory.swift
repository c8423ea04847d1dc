import Foundation

/// What a process holds in memory, from Linux's /proc.
public enum ProcessMemory {
    /// Resident set size in KiB (`VmRSS`), or nil when the process is gone.
    public static func residentKB(of pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        return status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
            .flatMap { $0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) } }
    }
}
