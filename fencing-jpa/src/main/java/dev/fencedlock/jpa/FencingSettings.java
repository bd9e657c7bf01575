package dev.fencedlock.jpa;

/**
 * Persistence-unit properties of fenced writes (set them like any Hibernate property, for example
 * in {@code persistence.xml} or {@code HibernatePersistenceConfiguration.property}). A bad value
 * fails the start of the {@code EntityManagerFactory} with an {@link IllegalArgumentException}
 * naming the key and the value.
 *
 * <table>
 *   <caption>Keys</caption>
 *   <tr><th>key</th><th>meaning</th><th>default</th></tr>
 *   <tr><td>{@value #LOCK_FENCE_TABLE}</td><td>the fence table, optionally qualified by schema
 *       ({@code schema.table})</td><td>{@value #DEFAULT_LOCK_FENCE_TABLE}</td></tr>
 * </table>
 */
public final class FencingSettings {
    /**
     * Retired: the fence row is no longer optional. Every transaction begun with a lease bound runs
     * the fence guard as its first statement, which covers everything the lock fence did (inserts,
     * writes to rows no newer holder touched) and more. {@code true} is accepted and changes
     * nothing; any other value fails the start of the {@code EntityManagerFactory}, since the
     * fencing it asked to leave out can no longer be left out. Remove the setting.
     *
     * @deprecated the guard always runs; see {@code docs/fencing-jpa.md}, "Migrating from the lock
     *     fence"
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public static final String LOCK_FENCE = "fencedlock.jpa.lock-fence";

    /**
     * The fence table: columns {@code lock_name} (the lock name, compared exactly) and {@code token}
     * ({@code BIGINT}), created by the Flyway migration at {@code
     * classpath:db/fencedlock/migration} of {@code fencing-jdbc}. Default {@value
     * #DEFAULT_LOCK_FENCE_TABLE}.
     */
    public static final String LOCK_FENCE_TABLE = "fencedlock.jpa.lock-fence-table";

    /** The default of {@link #LOCK_FENCE_TABLE}. */
    public static final String DEFAULT_LOCK_FENCE_TABLE = dev.fencedlock.jdbc.FenceTable.DEFAULT_NAME;

    /**
     * What the start of the {@code EntityManagerFactory} does about fenced tables (the tables of
     * fenced entities, their secondary and joined tables, their collection tables) that the
     * database does not protect with {@code fencing-jdbc}'s trigger ({@code
     * dev.fencedlock.jdbc.FencedTables}): {@code warn} (the default) logs one warning naming them
     * and the line that protects them; {@code require} fails the start with that message; {@code
     * protect} protects them (for schemas Hibernate itself creates, {@code hbm2ddl.auto=create});
     * {@code off} checks nothing. Runs after Hibernate's schema management. On databases without
     * the mechanism (MariaDB, MySQL) it logs at info that only fencing-jpa's own checks apply, and
     * never fails. Tables are compared by unqualified name, in the connection's default schema.
     */
    public static final String PROTECTED_TABLES = "fencedlock.jpa.protected-tables";

    private FencingSettings() {}
}
