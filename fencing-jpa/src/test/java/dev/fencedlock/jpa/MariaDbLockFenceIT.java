package dev.fencedlock.jpa;

/** The fenced-write tests with the lock fence on, on MariaDB. */
class MariaDbLockFenceIT extends AbstractLockFenceIT {
    @Override
    protected TestDatabase.Kind kind() {
        return TestDatabase.Kind.MARIADB;
    }
}
