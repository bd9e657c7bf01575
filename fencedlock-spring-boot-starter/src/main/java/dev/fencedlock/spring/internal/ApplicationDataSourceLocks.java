package dev.fencedlock.spring.internal;

import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockEventListener;
import dev.fencedlock.jdbcprovider.JdbcLockSettings;
import dev.fencedlock.jdbcprovider.JdbcLocks;
import javax.sql.DataSource;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * The {@code jdbc} backend on the application's own {@link DataSource} when {@code
 * fencedlock.backend=jdbc} names no {@code fencedlock.jdbc.url}: the locks live in the
 * application's database and its connection pool, as ShedLock's and Spring Integration's JDBC
 * stores do. Loaded only when jdbc-provider is on the classpath.
 */
final class ApplicationDataSourceLocks {
    private static final boolean PRESENT = ClassUtils.isPresent(
            "dev.fencedlock.jdbcprovider.JdbcLocks", ApplicationDataSourceLocks.class.getClassLoader());
    private static final String URL = "fencedlock.jdbc.url";

    private ApplicationDataSourceLocks() {}

    /** Whether the client's locks go to the application's data source. */
    public static boolean applies(LockConfig config, Environment environment) {
        return PRESENT && "jdbc".equals(config.backend()) && environment.getProperty(URL) == null;
    }

    /**
     * @param dataSource the application's only {@code DataSource} bean, or null when it has none or
     *     several
     * @throws IllegalArgumentException naming {@value #URL} when {@code dataSource} is null
     */
    public static LockClient create(LockConfig config, DataSource dataSource, LockEventListener listener) {
        if (dataSource == null) {
            throw new IllegalArgumentException("fencedlock.backend=jdbc keeps its locks in the application's"
                    + " DataSource unless " + URL + " is set, but the context has no single DataSource bean; set "
                    + URL + " (with fencedlock.jdbc.user and fencedlock.jdbc.password), or define one DataSource");
        }
        // the starter refuses connections of its DataSource beans inside a locked call outside a
        // transaction (UnfencedConnectionGuard): the backend's own statements are not the application's
        Object target = AopProxyUtils.getSingletonTarget(dataSource);
        DataSource locks = target instanceof DataSource unadvised ? unadvised : dataSource;
        return JdbcLocks.create(
                config,
                JdbcLockSettings.builder(config.settings(JdbcLocks.BACKEND))
                        .dataSource(locks)
                        .build(),
                listener);
    }
}
