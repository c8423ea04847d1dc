import Testing
@testable import SessionKit

@Suite struct RationalTests {
    @Test(arguments: [
        (0.25, Int64(1), Int64(4)), (1.0 / 3.0, 1, 3), (2.5, 5, 2), (4, 4, 1), (0.1, 1, 10),
        (0.3333333333, 1, 3), (1001.0 / 30000.0, 1001, 30000), (-1.5, -3, 2),
    ])
    func approximatesDecimalsAsSimpleFractions(x: Double, n: Int64, d: Int64) {
        let r = Rational.approximating(x)
        #expect(r?.numerator == n)
        #expect(r?.denominator == d)
    }

    @Test func rejectsNonFiniteAndHugeValues() {
        #expect(Rational.approximating(.nan) == nil)
        #expect(Rational.approximating(.infinity) == nil)
        #expect(Rational.approximating(1e300) == nil)
    }

    @Test func arithmeticIsExactAndReduced() throws {
        let third = try #require(Rational(1, 3)), sixth = try #require(Rational(1, 6))
        #expect(third + sixth == Rational(1, 2))
        #expect(third - sixth == sixth)
        #expect(third * Rational(3) == .one)
        #expect(third / sixth == Rational(2))
        #expect(Rational(2, -4) == Rational(-1, 2))
        #expect(Rational(1, 0) == nil)
    }

    @Test func roundingHalfUpAndFloor() throws {
        #expect(try #require(Rational(5, 2)).roundedHalfUp == 3)
        #expect(try #require(Rational(7, 3)).roundedHalfUp == 2)
        #expect(try #require(Rational(-5, 2)).roundedHalfUp == -2)
        #expect(try #require(Rational(-7, 3)).floor == -3)
        #expect(try #require(Rational(7, 3)).floor == 2)
    }

    @Test func largeCMTimeOperandsDoNotOverflow() throws {
        // Int64 values over Int32 timescales: the products need more than 64 bits.
        let a = try #require(Rational(9_000_000_000_000, 2_147_483_647))
        let b = try #require(Rational(1, 2_147_483_629))
        let sum = a + b
        #expect(sum > a)
        #expect(abs(sum.doubleValue - (a.doubleValue + b.doubleValue)) < 1e-6)
    }
}
