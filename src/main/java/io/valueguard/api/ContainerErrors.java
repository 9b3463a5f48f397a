package io.valueguard.api;

import org.apache.catalina.Valve;
import org.apache.catalina.core.StandardHost;
import org.apache.catalina.valves.ErrorReportValve;

import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;

/**
 * Puts {@link ContainerProblemValve} in place of Tomcat's error report valve, so that every error answer is a problem
 * body, the container's own included. Runs after Spring Boot's customizer, which adds a plain valve of its own.
 */
@Component
class ContainerErrors implements WebServerFactoryCustomizer<TomcatServletWebServerFactory>, Ordered {

	@Override
	public void customize(TomcatServletWebServerFactory factory) {
		factory.addContextCustomizers((context) -> {
			if (context.getParent() instanceof StandardHost host) {
				for (Valve valve : host.getPipeline().getValves()) {
					if (valve instanceof ErrorReportValve) {
						host.getPipeline().removeValve(valve);
					}
				}
				host.setErrorReportValveClass(ContainerProblemValve.class.getName());
				host.getPipeline().addValve(new ContainerProblemValve());
			}
		});
	}

	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

}
