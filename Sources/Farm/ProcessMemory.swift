import Foundation

/// This process's memory from `/proc/self/status` (Linux), in kB.
public enum ProcessMemory {
    /// Peak resident set size (`VmHWM`).
    public static var peakKB: Int? { field("VmHWM:") }
    /// Current resident set size (`VmRSS`).
    public static var residentKB: Int? { field("VmRSS:") }

    /// CPU time used by this process so far, user and system (`getrusage`), in seconds.
    public static var cpuSeconds: Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    private static func field(_ name: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name) }) else { return nil }
        return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) }
    }
}
