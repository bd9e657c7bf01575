package dev.fencedlock.jdbc;

import dev.fencedlock.jdbc.internal.TableFence;

/**
 * Which table holds the fence rows: {@value #DEFAULT_NAME}, which the Flyway migration at {@code
 * classpath:db/fencedlock/migration} creates, unless told otherwise. Another table must have the
 * same columns ({@code lock_name varchar(256) primary key, token bigint not null}); fencing-jpa
 * names it with {@code fencedlock.jpa.fence-table}, the Spring starter with a bean of this type.
 *
 * <p>Immutable; equal when the names are.
 */
public final class FenceTable {
    /** The table the Flyway migration creates. */
    public static final String DEFAULT_NAME = "fencedlock_fence";

    private static final FenceTable STANDARD = new FenceTable(DEFAULT_NAME);

    private final String name;

    private FenceTable(String name) {
        this.name = name;
    }

    /** {@value #DEFAULT_NAME}. */
    public static FenceTable standard() {
        return STANDARD;
    }

    /**
     * @param name a table name, optionally qualified by a schema: letters, digits, {@code _} and
     *     {@code $}, not starting with a digit
     * @throws IllegalArgumentException if {@code name} is null or not such a name
     */
    public static FenceTable named(String name) {
        TableFence.requireValidName(name);
        return name.equals(DEFAULT_NAME) ? STANDARD : new FenceTable(name);
    }

    /** The table's name, as given. */
    public String name() {
        return name;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof FenceTable table && table.name.equals(name);
    }

    @Override
    public int hashCode() {
        return name.hashCode();
    }

    @Override
    public String toString() {
        return name;
    }
}
