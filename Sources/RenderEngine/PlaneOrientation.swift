import SessionKit

/// Copies a picture plane into its oriented position (docs/geometry.md): a pure permutation of
/// pixels, so exact. `source` is the plane before orientation (`width`×`height`);
/// `destination` receives the oriented plane (width and height swapped at 90°/270°).
func orientPlane(_ orientation: Orientation, source: UnsafePointer<UInt8>, sourceStride: Int,
                 width: Int, height: Int, destination: UnsafeMutablePointer<UInt8>, destinationStride: Int,
                 bytesPerPixel: Int = 1) {
    // Oriented pixel (dx, dy) shows source pixel (sx, sy) with
    // sx = a·dx + b·dy + x0 and sy = c·dx + d·dy + y0: the transpose of the 2×2 part
    // (its inverse) plus the offsets that keep both inside the picture.
    let (a, b, c, d) = (orientation.a, orientation.b, orientation.c, orientation.d)
    let (outWidth, outHeight) = orientation.swapsAxes ? (height, width) : (width, height)
    let x0 = (a < 0 || b < 0) ? width - 1 : 0
    let y0 = (c < 0 || d < 0) ? height - 1 : 0
    let n = bytesPerPixel
    let step = a * n + c * sourceStride
    // In tiles of 32 × 32 pixels: at 90° a row of the result walks down a column of the
    // source, and a tile keeps the source lines it reads in the first-level cache.
    let tile = 32
    for top in stride(from: 0, to: outHeight, by: tile) {
        for left in stride(from: 0, to: outWidth, by: tile) {
            let right = min(left + tile, outWidth)
            for dy in top..<min(top + tile, outHeight) {
                let row = destination + dy * destinationStride
                var p = source + (a * left + b * dy + x0) * n + (c * left + d * dy + y0) * sourceStride
                if n == 1 {
                    for dx in left..<right {
                        row[dx] = p.pointee
                        p += step
                    }
                } else {
                    for dx in left..<right {
                        for k in 0..<n { row[dx * n + k] = p[k] }
                        p += step
                    }
                }
            }
        }
    }
}
