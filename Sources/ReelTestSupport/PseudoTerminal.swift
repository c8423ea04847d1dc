import Foundation

extension ProcessRunner {
    /// Runs `executable` with its stderr on a pseudo-terminal, as a user at a terminal
    /// runs it (`isatty` is true for it); `stderr` is what the terminal received, with the
    /// line discipline's "\r\n" for each "\n" turned back into "\n".
    public static func runOnTerminal(_ executable: String, _ arguments: [String], directory: URL? = nil,
                                     timeout: Double = 300) throws -> ProcessResult {
        let (master, slave) = try openPseudoTerminal()
        defer { close(master) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            close(slave)
            throw error
        }
        close(slave)   // the child holds it now: reading the master ends (EIO) when the child's copies close
        let done = killing(process.processIdentifier, after: timeout)
        defer { done.signal() }
        let terminal = DataBox()
        let group = DispatchGroup()
        group.enter()
        Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = read(master, &buffer, buffer.count)
                if n > 0 { terminal.data.append(contentsOf: buffer[0..<n]) } else if n < 0, errno == EINTR { continue } else { break }
            }
            group.leave()
        }.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        group.wait()
        let text = String(decoding: terminal.data, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
        return ProcessResult(status: process.terminationStatus, stderr: text, stdoutData: outData)
    }

    /// A new pseudo-terminal's two ends, through Linux's `/dev/ptmx` (glibc's
    /// `posix_openpt` family is not visible to Swift).
    static func openPseudoTerminal() throws -> (master: Int32, slave: Int32) {
        func failure() -> POSIXError { POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        guard master >= 0 else { throw failure() }
        let unlock: UInt = 0x4004_5431, number: UInt = 0x8004_5430   // TIOCSPTLCK, TIOCGPTN
        var locked: Int32 = 0, index: Int32 = 0
        guard ioctl(master, unlock, &locked) == 0, ioctl(master, number, &index) == 0 else {
            let error = failure()
            close(master)
            throw error
        }
        let slave = open("/dev/pts/\(index)", O_RDWR | O_NOCTTY)
        guard slave >= 0 else {
            let error = failure()
            close(master)
            throw error
        }
        return (master, slave)
    }
}
