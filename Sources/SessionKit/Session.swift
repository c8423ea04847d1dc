import Foundation

/// An edit: a video made of segments, or an image, plus metadata (SDK: `Session`).
/// `image` and `video` are both optional in the type so that a document with both or
/// neither can be decoded and then reported by validation with its path.
public struct Session: Hashable, Sendable, Codable {
    public static let formatIdentifier = "com.reelfarm.session"
    public static let formatVersion = FormatVersion(major: 1, minor: 0)

    public var formatIdentifier: String
    public var formatVersion: String
    public var sessionID: SessionID?
    public var dateCreated: Date?
    public var dateModified: Date?
    /// The app or device that made the session.
    public var source: String?
    public var userInfo: JSONValue?
    public var location: Location?
    public var isTransient: Bool?
    public var hidden: Bool?
    public var image: SessionImage?
    public var video: SessionVideo?

    public init(video: SessionVideo? = nil, image: SessionImage? = nil, sessionID: SessionID? = nil,
                dateCreated: Date? = nil, dateModified: Date? = nil, source: String? = nil,
                userInfo: JSONValue? = nil, location: Location? = nil, isTransient: Bool? = nil,
                hidden: Bool? = nil) {
        formatIdentifier = Session.formatIdentifier
        formatVersion = Session.formatVersion.description
        self.video = video
        self.image = image
        self.sessionID = sessionID
        self.dateCreated = dateCreated
        self.dateModified = dateModified
        self.source = source
        self.userInfo = userInfo
        self.location = location
        self.isTransient = isTransient
        self.hidden = hidden
    }

    private enum CodingKeys: String, CodingKey {
        case formatIdentifier, formatVersion, sessionID, dateCreated, dateModified, source, userInfo,
             location, isTransient, hidden, image, video
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        formatIdentifier = try c.decodeIfPresent(String.self, forKey: .formatIdentifier) ?? Session.formatIdentifier
        formatVersion = try c.decodeIfPresent(String.self, forKey: .formatVersion) ?? Session.formatVersion.description
        sessionID = try c.decodeIfPresent(SessionID.self, forKey: .sessionID)
        dateCreated = try c.decodeIfPresent(Date.self, forKey: .dateCreated)
        dateModified = try c.decodeIfPresent(Date.self, forKey: .dateModified)
        source = try c.decodeIfPresent(String.self, forKey: .source)
        userInfo = try c.decodeIfPresent(JSONValue.self, forKey: .userInfo)
        location = try c.decodeIfPresent(Location.self, forKey: .location)
        isTransient = try c.decodeIfPresent(Bool.self, forKey: .isTransient)
        hidden = try c.decodeIfPresent(Bool.self, forKey: .hidden)
        image = try c.decodeIfPresent(SessionImage.self, forKey: .image)
        video = try c.decodeIfPresent(SessionVideo.self, forKey: .video)
    }
}

/// `major.minor`; a reader accepts every version up to its own major.
public struct FormatVersion: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var major: Int
    public var minor: Int

    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let major = Int(parts[0]), major >= 0 else { return nil }
        let minor = parts.count == 2 ? Int(parts[1]) : 0
        guard let minor, minor >= 0 else { return nil }
        self.init(major: major, minor: minor)
    }

    public static func < (l: FormatVersion, r: FormatVersion) -> Bool { (l.major, l.minor) < (r.major, r.minor) }
    public var description: String { "\(major).\(minor)" }
}
