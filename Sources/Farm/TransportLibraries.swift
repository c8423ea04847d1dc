import CLZ4
import CZeroMQ

/// The farm's C libraries, as linked at run time (`reel --version`).
public enum TransportLibraries {
    public static var zeroMQ: String {
        var major: Int32 = 0, minor: Int32 = 0, patch: Int32 = 0
        zmq_version(&major, &minor, &patch)
        return "\(major).\(minor).\(patch)"
    }

    public static var lz4: String {
        let v = LZ4_versionNumber()
        return "\(v / 10000).\((v / 100) % 100).\(v % 100)"
    }

    /// Whether libzmq was built with CURVE security (docs/operations.md requires it off-host).
    public static var hasCurve: Bool { zmq_has("curve") != 0 }
}
