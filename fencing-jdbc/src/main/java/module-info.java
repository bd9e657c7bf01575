/**
 * The fence row for plain JDBC: {@link dev.fencedlock.jdbc.JdbcFencing} runs a transaction under a
 * lease, in token order, and {@link dev.fencedlock.jdbc.FencedTables} makes the database refuse
 * unfenced writes. The fenced-transaction core is shared with fencing-jpa and the Spring starter;
 * H2 loads the protected tables' trigger by name. H2 is optional: needed only on H2.
 */
module dev.fencedlock.jdbc {
    requires transitive dev.fencedlock;
    requires transitive java.sql;
    requires static com.h2database;

    exports dev.fencedlock.jdbc;
    exports dev.fencedlock.jdbc.internal to
            dev.fencedlock.jpa,
            dev.fencedlock.spring,
            dev.fencedlock.spring.test,
            com.h2database;
}
