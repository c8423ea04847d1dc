import ArgumentParser
import Foundation

/// Where a command will write, checked before it does any work (exit 2 at once, not after
/// a whole render).
enum OutputPlace {
    /// The file's folder exists and can be written.
    static func check(file path: String, option: String) throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try writableFolder(folder, for: path, option: option)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw ValidationError("\(option) \(path) is a folder: give a file name")
        }
    }

    /// The folder exists and can be written, or can be made inside one that can.
    static func check(directory path: String, option: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw ValidationError("\(option) \(path) is a file, not a folder") }
            try writableFolder(path, for: path, option: option)
        } else {
            try writableFolder(URL(fileURLWithPath: path).deletingLastPathComponent().path, for: path, option: option)
        }
    }

    private static func writableFolder(_ folder: String, for path: String, option: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("\(option) \(path): the folder \(folder) does not exist")
        }
        guard FileManager.default.isWritableFile(atPath: folder) else {
            throw ValidationError("\(option) \(path): the folder \(folder) cannot be written")
        }
    }
}
