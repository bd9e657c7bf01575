package dev.fencedlock.jpa;

/** The fenced-write tests on MariaDB (127.0.0.1:3306, database test). */
class MariaDbFencedWriteIT extends AbstractFencedWriteIT {
    @Override
    protected TestDatabase.Kind kind() {
        return TestDatabase.Kind.MARIADB;
    }
}
