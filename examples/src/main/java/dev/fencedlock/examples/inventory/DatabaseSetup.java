package dev.fencedlock.examples.inventory;

import java.io.IOException;
import java.net.ServerSocket;
import java.sql.SQLException;
import java.util.UUID;
import org.h2.tools.Server;

/**
 * Decides which database the run uses: the one given with {@code --jdbc-url}, or an embedded H2:
 * in-memory for a single process, behind an H2 TCP server on loopback when several worker
 * processes must share it.
 */
final class DatabaseSetup implements AutoCloseable {
    private final String jdbcUrl;
    private final Server h2Server;

    private DatabaseSetup(String jdbcUrl, Server h2Server) {
        this.jdbcUrl = jdbcUrl;
        this.h2Server = h2Server;
    }

    static DatabaseSetup resolve(RunSettings settings) throws SQLException, IOException {
        if (settings.jdbcUrl().isPresent()) {
            return new DatabaseSetup(settings.jdbcUrl().get(), null);
        }
        // a fenced transaction holds its lock's fence row until it ends, so the next holder of the
        // lock waits for a stalled one at begin(); H2's default lock timeout (1 s) is shorter than
        // the stalls the example injects
        String database = "inventory-" + UUID.randomUUID() + ";LOCK_TIMEOUT=60000";
        if (settings.processes() == 1) {
            return new DatabaseSetup("jdbc:h2:mem:" + database + ";DB_CLOSE_DELAY=-1", null);
        }
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        Server server = Server.createTcpServer("-tcpPort", String.valueOf(port), "-ifNotExists")
                .start();
        return new DatabaseSetup("jdbc:h2:tcp://127.0.0.1:" + port + "/mem:" + database + ";DB_CLOSE_DELAY=-1", server);
    }

    String jdbcUrl() {
        return jdbcUrl;
    }

    String describe() {
        if (jdbcUrl.startsWith("jdbc:h2:mem:")) {
            return "embedded H2";
        }
        if (h2Server != null) {
            return "embedded H2 (TCP server on 127.0.0.1:" + h2Server.getPort() + ")";
        }
        int query = jdbcUrl.indexOf('?');
        return query < 0 ? jdbcUrl : jdbcUrl.substring(0, query);
    }

    @Override
    public void close() {
        if (h2Server != null) {
            h2Server.stop();
        }
    }
}
