package dev.fencedlock.jdbcprovider.internal;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Properties;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Connections through {@link DriverManager} for a client configured with a JDBC URL instead of a
 * pooled {@link DataSource}. On PostgreSQL and MariaDB the driver is told to give up connecting and
 * reading after the operation timeout (unless the URL sets those timeouts itself), so that a
 * database that stops answering mid-handshake cannot hang a renewal.
 *
 * <p>A closed connection is kept for reuse (up to {@value #MAX_IDLE}, each for up to {@value
 * #MAX_IDLE_MILLIS} ms) unless it was {@linkplain #discard discarded} after a failure: opening a
 * PostgreSQL connection (a server process, authentication) costs far more than the statements of a
 * lock call. This is no pool: nothing is validated, and a kept connection that the server has
 * meanwhile closed fails its first statement, which the caller treats like any failed statement.
 * Thread-safe.
 */
final class DriverManagerDataSource implements DataSource {
    static final int MAX_IDLE = 8;
    static final long MAX_IDLE_MILLIS = 10_000;

    private final String url;
    private final Properties properties = new Properties();
    private final Deque<Idle> idle = new ArrayDeque<>(); // guarded by itself

    private record Idle(Connection connection, long sinceNanos) {}

    /**
     * @param user null to use the URL's
     * @param password null for none
     */
    DriverManagerDataSource(String url, String user, String password, Duration operationTimeout) {
        this.url = url;
        if (user != null) {
            properties.setProperty("user", user);
        }
        if (password != null) {
            properties.setProperty("password", password);
        }
        long millis = Math.max(1, operationTimeout.toMillis());
        String seconds = Long.toString(Math.max(1, (millis + 999) / 1000));
        if (url.startsWith("jdbc:postgresql:")) {
            timeout("loginTimeout", seconds);
            timeout("connectTimeout", seconds);
            timeout("socketTimeout", seconds);
        } else if (url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:")) {
            timeout("connectTimeout", Long.toString(millis));
            timeout("socketTimeout", Long.toString(millis));
        }
    }

    private void timeout(String key, String value) {
        if (!url.contains(key + "=")) {
            properties.setProperty(key, value);
        }
    }

    /** A new connection; closing it keeps it for {@link #idleConnection()}. */
    @Override
    public Connection getConnection() throws SQLException {
        return kept(DriverManager.getConnection(url, properties));
    }

    /** A connection closed recently and kept for reuse; null if there is none. */
    Connection idleConnection() {
        while (true) {
            Idle next;
            synchronized (idle) {
                next = idle.pollFirst();
            }
            if (next == null) {
                return null;
            }
            if (System.nanoTime() - next.sinceNanos() < MAX_IDLE_MILLIS * 1_000_000L) {
                return kept(next.connection());
            }
            closeQuietly(next.connection());
        }
    }

    /** Makes {@code connection}'s close() end it for good, if it came from this class; else nothing. */
    static void discard(Connection connection) {
        if (Proxy.isProxyClass(connection.getClass())
                && Proxy.getInvocationHandler(connection) instanceof Keeper keeper) {
            keeper.discarded = true;
        }
    }

    private Connection kept(Connection physical) {
        return (Connection) Proxy.newProxyInstance(
                DriverManagerDataSource.class.getClassLoader(),
                new Class<?>[] {Connection.class},
                new Keeper(physical));
    }

    /** Hands a closed connection back to the idle ones, unless it was discarded or is broken. */
    private final class Keeper implements InvocationHandler {
        private final Connection physical;
        private volatile boolean discarded;
        private volatile boolean closed;

        Keeper(Connection physical) {
            this.physical = physical;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            switch (method.getName()) {
                case "close" -> {
                    if (!closed) {
                        closed = true;
                        giveBack();
                    }
                    return null;
                }
                case "isClosed" -> {
                    return closed || physical.isClosed();
                }
                default -> {
                    if (closed) {
                        throw new SQLException("connection closed");
                    }
                    try {
                        return method.invoke(physical, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                }
            }
        }

        private void giveBack() {
            boolean keep;
            try {
                keep = !discarded && !physical.isClosed() && physical.getAutoCommit();
            } catch (SQLException e) {
                keep = false;
            }
            if (keep) {
                synchronized (idle) {
                    if (idle.size() < MAX_IDLE) {
                        idle.addFirst(new Idle(physical, System.nanoTime()));
                        return;
                    }
                }
            }
            closeQuietly(physical);
        }
    }

    private static void closeQuietly(Connection connection) {
        try {
            connection.close();
        } catch (SQLException e) {
            // it is gone either way
        }
    }

    @Override
    public Connection getConnection(String otherUser, String otherPassword) throws SQLException {
        return DriverManager.getConnection(url, otherUser, otherPassword);
    }

    @Override
    public PrintWriter getLogWriter() {
        return DriverManager.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) {
        throw new UnsupportedOperationException("the log writer is DriverManager's");
    }

    @Override
    public void setLoginTimeout(int seconds) {
        throw new UnsupportedOperationException("the login timeout is DriverManager's");
    }

    @Override
    public int getLoginTimeout() {
        return DriverManager.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("no parent logger");
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        if (type.isInstance(this)) {
            return type.cast(this);
        }
        throw new SQLException("not a wrapper of " + type.getName());
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
        return type.isInstance(this);
    }

    /** The URL without user information or parameters, which may carry a password. */
    @Override
    public String toString() {
        return maskUrl(url);
    }

    /** {@code url} cut before any {@code ?}, {@code ;} parameters and with user information removed. */
    static String maskUrl(String url) {
        String cut = url.split("[?;]", 2)[0];
        return cut.replaceFirst("//[^/@]*@", "//");
    }
}
