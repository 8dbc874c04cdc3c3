# lme4 reference fit of the bundled WMT22 into-English DA judgments, for
# tests/analysis/test_wmt22_fixture.py.
#
# Run once from the repository root:  Rscript tests/analysis/data/wmt22/make_reference.R
# Fits score ~ 1 + (1 | rater) + (1 | item) by REML with lme4's default control, where item is
# one system's output for one segment (language pair, system, segment id), and writes
# reference.json. The Python test compares analysis.stats against it; it never regenerates it.
suppressPackageStartupMessages({
  library(lme4)
  library(jsonlite)
})
d <- read.delim(xzfile("fixtures/wmt22-toen-da.tsv.xz"), colClasses = c(sid = "character"))
d$rater <- factor(d$rater)
d$item <- factor(paste(d$lp, d$system, d$sid, sep = "|"))
started <- proc.time()[["elapsed"]]
fit <- lmer(score ~ 1 + (1 | rater) + (1 | item), data = d, REML = TRUE)
seconds <- proc.time()[["elapsed"]] - started
vc <- as.data.frame(VarCorr(fit))
re <- ranef(fit)
raters <- c("M0460", "M0580", "M1315")
reference <- list(
  lme4_version = as.character(packageVersion("lme4")),
  r_version = R.version.string,
  formula = deparse(formula(fit)),
  n_obs = nobs(fit),
  levels = as.list(sapply(re, nrow)),
  fixef = as.list(fixef(fit)),
  se = as.list(sqrt(diag(as.matrix(vcov(fit))))),
  theta = as.list(getME(fit, "theta")),
  variances = as.list(setNames(vc$vcov, ifelse(is.na(vc$var1), "residual", vc$grp))),
  sigma = sigma(fit),
  reml_criterion = unname(REMLcrit(fit)),
  loglik = as.numeric(logLik(fit)),
  rater_modes = as.list(setNames(re$rater[raters, 1], raters)),
  singular = isSingular(fit),
  messages = as.list(c(fit@optinfo$conv$lme4$messages, fit@optinfo$message)),
  seconds = seconds
)
writeLines(toJSON(reference, auto_unbox = TRUE, digits = NA, pretty = TRUE, null = "null"),
           "tests/analysis/data/wmt22/reference.json")
