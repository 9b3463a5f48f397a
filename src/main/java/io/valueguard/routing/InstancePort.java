package io.valueguard.routing;

import java.io.IOException;
import java.util.Map;

import io.valueguard.config.QueryProperties;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.catalina.connector.Connector;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.tomcat.SslConnectorCustomizer;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.Ssl;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.boot.web.server.WebServerSslBundle;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The instance protocol on a port of its own ({@code valueguard.query.internal-port}): a second connector, with the
 * API's certificate when {@code server.ssl} is on, that answers only {@code /internal/*}, while the API port no
 * longer answers it. A NetworkPolicy can then keep the protocol to the release's own pods and still open the API to
 * its clients, which a shared port cannot. Unset, the protocol shares the API port, guarded by its signature alone.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(InstancePort.Configured.class)
class InstancePort {

	@Bean
	ProtocolConnector instanceProtocolConnector(QueryProperties properties) {
		return new ProtocolConnector(properties.internalPort());
	}

	@Bean
	FilterRegistrationBean<PortSeparation> instanceProtocolPortSeparation(QueryProperties properties) {
		FilterRegistrationBean<PortSeparation> registration = new FilterRegistrationBean<>(
				new PortSeparation(properties.internalPort()));
		// before Spring Security, whose rules would otherwise answer a request on the wrong port first
		registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
		return registration;
	}

	/** Whether {@code valueguard.query.internal-port} holds a port: set but empty means unset, as it binds. */
	static final class Configured implements Condition {

		@Override
		public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
			return Binder.get(context.getEnvironment()).bind("valueguard.query.internal-port", Integer.class).isBound();
		}

	}

	/**
	 * Adds the protocol's connector, after Spring Boot's customizers have given the factory its port and SSL settings;
	 * refuses the API's port.
	 */
	static final class ProtocolConnector implements WebServerFactoryCustomizer<TomcatServletWebServerFactory>, Ordered {

		private static final Log logger = LogFactory.getLog(ProtocolConnector.class);

		private final int port;

		ProtocolConnector(int port) {
			this.port = port;
		}

		@Override
		public void customize(TomcatServletWebServerFactory factory) {
			// the factory's port is the API's as resolved, Spring Boot's default included; 0 on both is two free ports
			if (this.port != 0 && this.port == factory.getPort()) {
				throw new IllegalStateException("valueguard.query.internal-port (" + this.port + ") must differ from "
						+ "server.port (" + factory.getPort() + "): it gives the instance protocol a port of its own; "
						+ "leave it unset to share the API port");
			}
			Connector connector = new Connector(factory.getProtocol());
			connector.setPort(this.port);
			Ssl ssl = factory.getSsl();
			if (Ssl.isEnabled(ssl)) {
				new SslConnectorCustomizer(logger, connector, ssl.getClientAuth())
					.customize(WebServerSslBundle.get(ssl, factory.getSslBundles()), Map.of());
			}
			factory.addAdditionalConnectors(connector);
		}

		@Override
		public int getOrder() {
			return Ordered.LOWEST_PRECEDENCE;
		}

	}

	/** 404 for the protocol on any other port, and for anything else on the protocol's port. */
	static final class PortSeparation extends OncePerRequestFilter {

		private final int port;

		PortSeparation(int port) {
			this.port = port;
		}

		@Override
		protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
				throws ServletException, IOException {
			String path = request.getRequestURI().substring(request.getContextPath().length());
			boolean protocol = path.equals(InstanceProtocolServlet.PATH)
					|| path.startsWith(InstanceProtocolServlet.PATH + "/");
			if (protocol != (request.getLocalPort() == this.port)) {
				ProblemTypes.write(response, 404, "not-found", "Not Found",
						protocol ? "The instance protocol is served on its own port"
								: "This port serves only the instance protocol");
				return;
			}
			chain.doFilter(request, response);
		}

	}

}
