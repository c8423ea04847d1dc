/// Every filter of a session with its JSON path, in document order.
public struct PlacedFilter: Sendable {
    public let filter: SessionFilter
    public let path: JSONPath
}

extension Session {
    public var placedFilters: [PlacedFilter] {
        var placed: [PlacedFilter] = []
        func add(_ filters: [SessionFilter], _ path: JSONPath) {
            for (i, f) in filters.enumerated() { placed.append(PlacedFilter(filter: f, path: path[i])) }
        }
        let root = JSONPath()
        if let video {
            for (i, segment) in video.videoSegments.enumerated() {
                add(segment.filters, root["video"]["videoSegments"][i]["filters"])
            }
            add(video.filters, root["video"]["filters"])
            if let p = video.primaryFilter { placed.append(PlacedFilter(filter: p, path: root["video"]["primaryFilter"])) }
        }
        if let image {
            add(image.filters, root["image"]["filters"])
            if let p = image.primaryFilter { placed.append(PlacedFilter(filter: p, path: root["image"]["primaryFilter"])) }
        }
        return placed
    }
}

extension FilterDefinition {
    /// The files a filter of this type reads, and the JSON key that names each
    /// (`type` for a look's image). `custom` gives a custom type's parsed definition.
    public func assets(of filter: SessionFilter, custom: CustomFilterFile? = nil) -> [(FilterAsset, key: String)] {
        switch input {
        case .none:
            return []
        case .fileField(let key, let kind):
            guard let reference = key == "image" ? filter.image : filter.file else { return [] }
            return [(FilterAsset(kind: kind, reference: reference), key)]
        case .look:
            if let custom { return custom.assets.map { ($0, "type") } }
            return [(FilterAsset(kind: .lookupImage, reference: NamedLooks.imageReference(type)), "type")]
        }
    }
}
