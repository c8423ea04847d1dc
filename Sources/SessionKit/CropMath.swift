/// docs/geometry.md: the largest rectangle with `renderSize`'s aspect ratio, centred in
/// `actualSize`; it touches two opposite edges.
public func suggestedCropRect(actualSize: Size, renderSize: Size) -> Rect {
    guard actualSize.isFinitePositive, renderSize.isFinitePositive else {
        return Rect(x: 0, y: 0, width: actualSize.width, height: actualSize.height)
    }
    let target = renderSize.aspectRatio
    if actualSize.aspectRatio > target {
        // Wider than the render: full height, width cut.
        let width = actualSize.height * target
        return Rect(x: (actualSize.width - width) / 2, y: 0, width: width, height: actualSize.height)
    } else {
        let height = actualSize.width / target
        return Rect(x: 0, y: (actualSize.height - height) / 2, width: actualSize.width, height: height)
    }
}

/// Rounds a requested render size down to even numbers (yuv420p needs them).
public func evenRenderSize(_ size: Size) -> (width: Int, height: Int) {
    func even(_ v: Double) -> Int {
        guard v.isFinite, v >= 2, v < 1_048_576 else { return 0 }
        return Int(v.rounded(.down)) & ~1
    }
    return (even(size.width), even(size.height))
}
