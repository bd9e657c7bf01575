package dev.fencedlock.faults.jdbc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.h2.tools.Server;

/**
 * A file-backed H2 database behind an H2 TCP server on loopback that a test can stop and start
 * again on the same port, as a database server restart would; or wipe in between, as a restore
 * that lost the lock table's rows would. Not thread-safe; {@link #close()} stops the server and
 * deletes the files.
 */
final class H2TcpDatabase implements AutoCloseable {
    private final Path directory;
    private Server server;
    private int port;

    private H2TcpDatabase(Path directory) {
        this.directory = directory;
    }

    /** Starts a server on a free port with a migrated, empty lock table. */
    static H2TcpDatabase start() throws IOException, SQLException {
        H2TcpDatabase database = new H2TcpDatabase(Files.createTempDirectory("fencedlock-h2-restart"));
        database.startServer("0");
        database.migrate();
        return database;
    }

    String url() {
        return "jdbc:h2:tcp://127.0.0.1:" + port + "/locks";
    }

    /** A data source opening a new connection per call, for the test's own reads and writes. */
    DataSource dataSource() {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL(url());
        dataSource.setUser("sa");
        dataSource.setPassword("");
        return dataSource;
    }

    /** Stops the server; every open connection breaks. */
    void stop() {
        server.stop();
    }

    /** Starts the server again on the same port, with the data it had. */
    void restart() throws SQLException {
        startServer(Integer.toString(port));
    }

    /** Deletes the database files while the server is stopped, then restarts it and migrates anew. */
    void restartEmpty() throws SQLException {
        deleteFiles();
        restart();
        migrate();
    }

    private void startServer(String onPort) throws SQLException {
        server = Server.createTcpServer("-tcpPort", onPort, "-baseDir", directory.toString(), "-ifNotExists")
                .start();
        port = server.getPort();
    }

    private void migrate() {
        Migrations.migrate(dataSource());
    }

    private void deleteFiles() {
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder())
                    .filter(path -> !path.equals(directory))
                    .forEach(path -> {
                        try {
                            Files.delete(path);
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        server.stop();
        deleteFiles();
        try {
            Files.deleteIfExists(directory);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
