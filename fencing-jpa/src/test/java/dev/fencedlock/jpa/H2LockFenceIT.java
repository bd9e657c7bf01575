package dev.fencedlock.jpa;

/** The fenced-write tests with the lock fence on, on H2. */
class H2LockFenceIT extends AbstractLockFenceIT {
    @Override
    protected TestDatabase.Kind kind() {
        return TestDatabase.Kind.H2;
    }
}
