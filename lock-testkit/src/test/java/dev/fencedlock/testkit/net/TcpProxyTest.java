package dev.fencedlock.testkit.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The proxy's modes against a loopback echo server. */
class TcpProxyTest {
    private ServerSocket echo;
    private TcpProxy proxy;

    @BeforeEach
    void start() throws IOException {
        echo = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread server = new Thread(() -> {
            while (true) {
                try {
                    Socket socket = echo.accept();
                    Thread pump = new Thread(() -> {
                        try (socket) {
                            socket.getInputStream().transferTo(socket.getOutputStream());
                        } catch (IOException e) {
                            // closed
                        }
                    });
                    pump.setDaemon(true);
                    pump.start();
                } catch (IOException e) {
                    return;
                }
            }
        });
        server.setDaemon(true);
        server.start();
        proxy = TcpProxy.start("127.0.0.1", echo.getLocalPort());
    }

    @AfterEach
    void stop() throws IOException {
        proxy.close();
        echo.close();
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), proxy.port());
        socket.setSoTimeout(5_000);
        return socket;
    }

    private static String roundTrip(Socket socket, String text) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(text.getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return read(socket.getInputStream(), text.length());
    }

    private static String read(InputStream in, int length) throws IOException {
        return new String(in.readNBytes(length), StandardCharsets.US_ASCII);
    }

    @Test
    void passForwardsBothWays() throws IOException {
        try (Socket socket = connect()) {
            assertThat(roundTrip(socket, "ping")).isEqualTo("ping");
        }
    }

    @Test
    void delayedRepliesArriveNoSoonerThanTheDelay() throws IOException {
        proxy.delayReplies(Duration.ofMillis(300));
        try (Socket socket = connect()) {
            long start = System.nanoTime();
            assertThat(roundTrip(socket, "slow")).isEqualTo("slow");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
        }
    }

    @Test
    void aBlackholeHoldsBytesUntilItHealsAndKeepsTheirOrder() throws IOException {
        try (Socket socket = connect()) {
            assertThat(roundTrip(socket, "a")).isEqualTo("a");
            proxy.blackhole();
            socket.getOutputStream().write("bcd".getBytes(StandardCharsets.US_ASCII));
            socket.setSoTimeout(300);
            InputStream in = socket.getInputStream();
            assertThatThrownBy(in::read).as("nothing crosses a partition").isInstanceOf(SocketTimeoutException.class);
            socket.setSoTimeout(5_000);
            proxy.pass();
            assertThat(read(in, 3)).isEqualTo("bcd");
        }
    }

    @Test
    void resetClosesOpenConnectionsAndRefusesNewOnes() throws IOException {
        try (Socket open = connect()) {
            assertThat(roundTrip(open, "x")).isEqualTo("x");
            proxy.reset();
            assertThat(open.getInputStream().read()).isEqualTo(-1);
        }
        try (Socket refused = connect()) {
            assertThat(refused.getInputStream().read()).isEqualTo(-1);
        }
        proxy.pass();
        try (Socket healed = connect()) {
            assertThat(roundTrip(healed, "y")).isEqualTo("y");
        }
    }

    @Test
    void theModeIsReadable() {
        proxy.delayReplies(Duration.ofMillis(250));
        assertThat(proxy.mode()).isEqualTo("delay 250ms");
        proxy.blackhole();
        assertThat(proxy.mode()).isEqualTo("blackhole");
    }

    @Test
    void countsTheConnectionsItLinkedButNotThoseItRefused() throws Exception {
        try (Socket first = connect();
                Socket second = connect()) {
            assertThat(roundTrip(first, "a")).isEqualTo("a");
            assertThat(roundTrip(second, "b")).isEqualTo("b");
        }
        assertThat(proxy.acceptedConnections()).isEqualTo(2);
        proxy.reset();
        try (Socket refused = connect()) {
            refused.getOutputStream().write('x');
            assertThat(refused.getInputStream().read())
                    .as("a refused connection is closed")
                    .isEqualTo(-1);
        } catch (IOException expected) {
            // a reset instead of an orderly close: refused just the same
        }
        assertThat(proxy.acceptedConnections()).isEqualTo(2);
    }
}
