package dev.fencedlock.jdbcprovider.internal;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.Properties;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Opens a new connection through {@link DriverManager} for every call, for a client configured
 * with a JDBC URL instead of a pooled {@link DataSource}. On PostgreSQL and MariaDB the driver is
 * told to give up connecting and reading after the operation timeout (unless the URL sets those
 * timeouts itself), so that a database that stops answering mid-handshake cannot hang a renewal.
 * Thread-safe.
 */
public final class DriverManagerDataSource implements DataSource {
    private final String url;
    private final Properties properties = new Properties();

    /**
     * @param user null to use the URL's
     * @param password null for none
     */
    public DriverManagerDataSource(String url, String user, String password, Duration operationTimeout) {
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

    @Override
    public Connection getConnection() throws SQLException {
        return DriverManager.getConnection(url, properties);
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
    public static String maskUrl(String url) {
        String cut = url.split("[?;]", 2)[0];
        return cut.replaceFirst("//[^/@]*@", "//");
    }
}
