import Testing

@Test func packageLoads() {
    #expect(Bool(true))
}
