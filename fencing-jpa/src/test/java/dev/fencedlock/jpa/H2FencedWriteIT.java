package dev.fencedlock.jpa;

/** The fenced-write tests on H2, the embedded default. */
class H2FencedWriteIT extends AbstractFencedWriteIT {
    @Override
    protected TestDatabase.Kind kind() {
        return TestDatabase.Kind.H2;
    }
}
